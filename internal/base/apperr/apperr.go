// Package apperr is the one error type of storeadmin: a code that says what
// kind of failure it is and a message written for a person.
//
// Resolvers and storage functions return these; the GraphQL error presenter
// turns the code into extensions.code and the REST adapter into an HTTP
// status, each in exactly one place. Any other error is an internal one: it is
// logged and the client sees a generic message.
package apperr

import (
	"errors"
	"fmt"
)

// Code classifies an error. The values are the GraphQL extensions.code that
// clients see.
type Code string

// The codes, with the HTTP status the REST surface answers for each.
const (
	Invalid         Code = "BAD_USER_INPUT"  // 400
	Unauthenticated Code = "UNAUTHENTICATED" // 401
	Forbidden       Code = "FORBIDDEN"       // 403
	NotFound        Code = "NOT_FOUND"       // 404
	Conflict        Code = "CONFLICT"        // 409
	RateLimited     Code = "RATE_LIMITED"    // 429
	Timeout         Code = "TIMEOUT"         // 503: the operation ran past its time limit
	Internal        Code = "INTERNAL"        // 500
	// Unavailable is a failure that passes by itself (the database is
	// unreachable): the client should retry after RetryAfter seconds.
	Unavailable Code = "SERVICE_UNAVAILABLE" // 503
	// BadRequest is a request that is not one at all: a body that is not
	// JSON, or a GraphQL batch. Invalid is for values inside a request.
	BadRequest Code = "BAD_REQUEST" // 400
	// TooLarge is a body over its limit. POST /graphql reports it with
	// extensions.code BAD_REQUEST, as it does a malformed body.
	TooLarge Code = "PAYLOAD_TOO_LARGE" // 413
	// MethodNotAllowed is a method the path does not take.
	MethodNotAllowed Code = "METHOD_NOT_ALLOWED" // 405
	// UnsupportedMediaType is a body of a type the endpoint does not read.
	UnsupportedMediaType Code = "UNSUPPORTED_MEDIA_TYPE" // 415
	// BadGateway is a third party the request needed (a payment
	// provider's API) that failed: it did not answer, or answered with a
	// fault of its own. Nothing was written.
	BadGateway Code = "BAD_GATEWAY" // 502
)

// RetryAfter is the Retry-After, in seconds, of an Unavailable answer.
const RetryAfter = "5"

// UnavailableMessage is what a client is told while the database is out.
const UnavailableMessage = "the service is briefly unavailable (its database does not answer); retry after the number of seconds in Retry-After"

// HTTPStatus is the status code the REST surface answers for c.
func (c Code) HTTPStatus() int {
	switch c {
	case Invalid, BadRequest, "GRAPHQL_VALIDATION_FAILED", "GRAPHQL_PARSE_FAILED":
		return 400
	case TooLarge:
		return 413
	case MethodNotAllowed:
		return 405
	case UnsupportedMediaType:
		return 415
	case Unauthenticated:
		return 401
	case Forbidden:
		return 403
	case NotFound:
		return 404
	case Conflict:
		return 409
	case RateLimited:
		return 429
	case Unavailable, Timeout:
		return 503
	case BadGateway:
		return 502
	}
	return 500
}

// Error is a failure with a code and a message meant for the client.
type Error struct {
	Code    Code
	Message string
	// Field is the input value at fault when the failure is about one:
	// its path in what the client sent, in the one style of both surfaces
	// (variants[0].price_cents), which Message begins with. Empty when no
	// one field is at fault.
	Field string
}

func (e *Error) Error() string { return e.Message }

// New returns an error with code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalidf reports a value the client sent that cannot be accepted.
func Invalidf(format string, args ...any) *Error { return New(Invalid, format, args...) }

// InvalidField reports a value the client sent at field (a path such as
// variants[0].price_cents) that cannot be accepted; the message is the
// field followed by the formatted reason ("must be an integer, not 1.5").
func InvalidField(field, format string, args ...any) *Error {
	return &Error{Code: Invalid, Field: field, Message: field + " " + fmt.Sprintf(format, args...)}
}

// NotFoundf reports a record that does not exist in the caller's store.
func NotFoundf(format string, args ...any) *Error { return New(NotFound, format, args...) }

// Conflictf reports a request that conflicts with what exists.
func Conflictf(format string, args ...any) *Error { return New(Conflict, format, args...) }

// Forbiddenf reports a caller that may not do this.
func Forbiddenf(format string, args ...any) *Error { return New(Forbidden, format, args...) }

// FieldOf is the field err is about: that of the first *Error in its
// chain, else empty.
func FieldOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// CodeOf is the code of err: that of the first *Error in its chain, else
// Internal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}
