package storefront

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"github.com/go-chi/chi/v5"

	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/jsonbody"
)

// readBody decodes the request's JSON object into v (a pointer to a struct
// whose pointer fields tell a field sent from one left out), strictly: a
// field v does not declare, at any depth, is a 400 naming it, as the admin
// API refuses unknown input. An empty body is an empty object.
func readBody(r *http.Request, v any) error {
	raw, err := jsonbody.Read(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	if err := jsonbody.Decode(raw, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return apperr.New(apperr.BadRequest, "the body has a field %s that this call does not take", name)
		}
		return apperr.New(apperr.BadRequest, "the request body must be a JSON object")
	}
	return nil
}

// tokenRE is what a cart or checkout token looks like
// (models.NewStorefrontToken).
var tokenRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

// tokenParam is the path's token; one that cannot be a token is not found,
// as an unknown one is.
func tokenParam(r *http.Request, what string) (string, error) {
	t := chi.URLParam(r, "token")
	if !tokenRE.MatchString(t) {
		return "", apperr.NotFoundf("no %s has this token", what)
	}
	return t, nil
}

// storeOf is the store of the request's publishable key.
func storeOf(r *http.Request) int64 { return auth.PrincipalFrom(r.Context()).StoreID }
