package auth

import (
	"context"
	"strings"
	"testing"

	"storeadmin/internal/base/apperr"
)

func TestScopesAllows(t *testing.T) {
	tests := []struct {
		name   string
		scopes Scopes
		need   string
		want   bool
	}{
		{"no scopes hold everything", nil, "orders:write", true},
		{"exact read", Scopes{"orders:read"}, "orders:read", true},
		{"write holds read", Scopes{"orders:write"}, "orders:read", true},
		{"read does not hold write", Scopes{"orders:read"}, "orders:write", false},
		{"other resource", Scopes{"products:write"}, "orders:read", false},
		{"prefix is not a resource", Scopes{"order:write"}, "orders:read", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.scopes.Allows(tt.need); got != tt.want {
				t.Fatalf("%v.Allows(%q) = %v, want %v", tt.scopes, tt.need, got, tt.want)
			}
		})
	}
}

func TestParseScopes(t *testing.T) {
	got, err := ParseScopes([]string{" products:write", "orders:read", "orders:read", ""})
	if err != nil || strings.Join(got, ",") != "orders:read,products:write" {
		t.Fatalf("ParseScopes = %v, %v", got, err)
	}
	for _, bad := range []string{"orders", "orders:admin", "nope:read", ":read", "orders:"} {
		if _, err := ParseScopes([]string{bad}); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("ParseScopes(%q) error = %v, want invalid", bad, err)
		}
	}
}

func TestRoleIncludes(t *testing.T) {
	if !RoleAdmin.Includes(RoleStaff) || !RoleOwner.Includes(RoleAdmin) || RoleStaff.Includes(RoleAdmin) {
		t.Fatal("role order is wrong")
	}
	if Role("").Includes(RoleStaff) || RoleAdmin.Includes(Role("")) || Role("root").Includes(RoleStaff) {
		t.Fatal("unknown roles must include nothing and be included by nothing")
	}
}

func TestCheck(t *testing.T) {
	key := func(role Role, scopes ...string) context.Context {
		return WithPrincipal(context.Background(), &Principal{Kind: KindAPIKey, StoreID: 1, ActorID: 7, Role: role, Scopes: scopes})
	}
	session := WithPrincipal(context.Background(), &Principal{Kind: KindSession, StoreID: 1, ActorID: 3, Role: RoleOwner})
	tests := []struct {
		name        string
		ctx         context.Context
		scope       string
		role        Role
		keysRefused bool
		want        apperr.Code
	}{
		{"no principal", context.Background(), "store:read", RoleStaff, false, apperr.Unauthenticated},
		{"staff reads", key(RoleStaff), "store:read", RoleStaff, false, ""},
		{"staff cannot admin", key(RoleStaff), "store:write", RoleAdmin, false, apperr.Forbidden},
		{"missing scope", key(RoleAdmin, "orders:read"), "store:read", RoleStaff, false, apperr.Forbidden},
		{"refused to admin keys", key(RoleAdmin), "staff:write", RoleAdmin, true, apperr.Forbidden},
		{"refused to keys with the scope", key(RoleAdmin, "staff:write"), "staff:write", RoleAdmin, true, apperr.Forbidden},
		{"sessions are not refused", session, "staff:write", RoleAdmin, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.ctx, tt.scope, tt.role, tt.keysRefused)
			if tt.want == "" && err != nil || tt.want != "" && apperr.CodeOf(err) != tt.want {
				t.Fatalf("Check = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := StoreID(context.Background()); apperr.CodeOf(err) != apperr.Unauthenticated {
		t.Fatal("StoreID without a principal must fail closed")
	}
}

func TestSecrets(t *testing.T) {
	secret, hash, hint := NewSecret("api")
	if !strings.HasPrefix(secret, "sa_api_") || len(secret) < 40 {
		t.Fatalf("secret %q", secret)
	}
	if string(HashSecret(secret)) != string(hash) || strings.Contains(hint, secret[8:len(secret)-4]) ||
		!strings.HasSuffix(hint, secret[len(secret)-4:]) || !strings.HasPrefix(hint, "sa_api_") {
		t.Fatalf("hash or hint wrong: hint %q", hint)
	}
	if other, _, _ := NewSecret("api"); other == secret {
		t.Fatal("two secrets are equal")
	}
	for header, want := range map[string]string{"Bearer abc": "abc", "bearer  abc ": "abc", "Basic abc": "", "Bearer": "", "": ""} {
		got, ok := BearerToken(header)
		if got != want || ok != (want != "") {
			t.Errorf("BearerToken(%q) = %q, %v", header, got, ok)
		}
	}
}
