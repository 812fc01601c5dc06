// Package auth knows who is calling and what they may do: API keys (made by
// NewAPIKey) and their secrets, roles, scopes, the principal carried in a
// request's context, and the one access check that the GraphQL directives
// apply to every root field and to every record of another resource nested
// in an answer.
package auth

import (
	"context"

	"storeadmin/internal/base/apperr"
)

// Role is a store role. Admin can do everything staff can.
type Role string

// The store roles a key can carry. Members may also be owners, who hold admin
// rights; keys are capped at admin.
const (
	RoleStaff Role = "staff"
	RoleAdmin Role = "admin"
	RoleOwner Role = "owner"
	// RolePublishable is a storefront key's: it ranks below every store
	// role, so it passes no access check of the admin API (which refuses
	// such keys before that anyway).
	RolePublishable Role = "publishable"
)

// rank orders roles so that a higher rank includes a lower one.
func (r Role) rank() int {
	switch r {
	case RoleOwner:
		return 3
	case RoleAdmin:
		return 2
	case RoleStaff:
		return 1
	}
	return 0
}

// Includes reports whether r grants everything need grants.
func (r Role) Includes(need Role) bool { return r.rank() >= need.rank() && need.rank() > 0 }

// ParseKeyRole accepts the roles a key may be given.
func ParseKeyRole(s string) (Role, error) {
	switch Role(s) {
	case RoleAdmin, RoleStaff:
		return Role(s), nil
	}
	return "", apperr.Invalidf("role must be admin or staff, not %q", s)
}

// Kind says what sort of credential a principal presented.
type Kind string

// Principal kinds. API keys (and AI-connector keys, which are keys too) are
// refused the operations marked @keysRefused; dashboard sessions are not.
const (
	KindAPIKey  Kind = "api_key"
	KindMCPKey  Kind = "mcp_key"
	KindSession Kind = "session"
	// KindStorefront is a publishable storefront key (sa_pub_...): shoppers'
	// browsers hold it, so it opens only /storefront/v1, which ingests.
	KindStorefront Kind = "storefront_key"
	// KindSystem is the service acting for a store on its own account,
	// for example to render an event's payload.
	KindSystem Kind = "system"
)

// Principal is the authenticated caller of one request.
type Principal struct {
	Kind    Kind
	StoreID int64
	// ActorID is the key id for keys and the user id for sessions.
	ActorID int64
	Role    Role
	Scopes  Scopes
}

// System is the principal of work the service does for a store itself: it
// holds every scope with the owner's role.
func System(storeID int64) *Principal {
	return &Principal{Kind: KindSystem, StoreID: storeID, Role: RoleOwner}
}

// IsKey reports whether the caller presented a key rather than a session.
func (p *Principal) IsKey() bool { return p.Kind == KindAPIKey || p.Kind == KindMCPKey }

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the caller of ctx, or nil.
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// StoreID is the store of the caller. It fails closed: without a principal
// there is no store, and every tenant query must stop.
func StoreID(ctx context.Context) (int64, error) {
	p := PrincipalFrom(ctx)
	if p == nil || p.StoreID == 0 {
		return 0, apperr.New(apperr.Unauthenticated, "an API key is required: send Authorization: Bearer <key>")
	}
	return p.StoreID, nil
}

// Check is the access gate of one operation: the caller must be known, hold
// scope (a write scope holds its read), have at least role, and not be a key
// when keysRefused.
func Check(ctx context.Context, scope string, role Role, keysRefused bool) error {
	p := PrincipalFrom(ctx)
	if p == nil {
		return apperr.New(apperr.Unauthenticated, "an API key is required: send Authorization: Bearer <key>")
	}
	if keysRefused && p.IsKey() {
		return apperr.Forbiddenf("this operation is not available to API keys; use the seller dashboard")
	}
	if !p.Scopes.Allows(scope) {
		return apperr.Forbiddenf("this key lacks the %s scope", scope)
	}
	if !p.Role.Includes(role) {
		return apperr.Forbiddenf("this operation needs the %s role; the key has %s", role, p.Role)
	}
	return nil
}
