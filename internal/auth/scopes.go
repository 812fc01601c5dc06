package auth

import (
	"slices"
	"strings"

	"storeadmin/internal/base/apperr"
)

// Resource is one scope prefix, with the label the dashboard shows for it.
type Resource struct {
	Resource string `json:"resource"`
	Label    string `json:"label"`
}

// Resources are the grantable scope prefixes, one per area of the API.
var Resources = []Resource{
	{"store", "Store profile"},
	{"settings", "Store settings"},
	{"staff", "Staff"},
	{"api-keys", "API keys"},
	{"audit-logs", "Audit log"},
	{"webhooks", "Webhooks"},
	{"orders", "Orders"},
	{"draft-orders", "Draft orders"},
	{"fulfillments", "Fulfillments"},
	{"products", "Products"},
	{"collections", "Collections"},
	{"discounts", "Discounts"},
	{"shipping", "Shipping"},
	{"tax", "Tax"},
	{"payments", "Payment gateways"},
	{"billing", "Plan and billing"},
	{"domains", "Custom domains"},
	{"pages", "Pages"},
	{"blog", "Blog"},
	{"forms", "Form submissions"},
	{"email", "Email settings"},
	{"navigation", "Navigation menus and URL redirects"},
	{"media", "Media uploads"},
	{"bundles", "Volume bundles"},
	{"reviews", "Product reviews"},
	{"analytics", "Analytics"},
	{"abandoned", "Abandoned carts and checkouts"},
	{"experiments", "A/B tests"},
	{"checkout", "Checkout and post-purchase"},
	{"customizer", "Product customizer"},
	{"themes", "Themes"},
	{"marketing", "Marketing and tracking"},
	{"extplatform-import", "External-platform import"},
}

// Actions are the two halves of every scope.
var Actions = []string{"read", "write"}

// Scopes is what a key was granted. Empty means everything its role allows.
type Scopes []string

// Allows reports whether s holds scope; resource:write holds resource:read.
func (s Scopes) Allows(scope string) bool {
	if len(s) == 0 {
		return true
	}
	if slices.Contains(s, scope) {
		return true
	}
	if res, ok := strings.CutSuffix(scope, ":read"); ok {
		return slices.Contains(s, res+":write")
	}
	return false
}

// ParseScopes checks and normalises a list of scopes: known resources, the
// actions read or write, no duplicates, sorted.
func ParseScopes(in []string) (Scopes, error) {
	out := make(Scopes, 0, len(in))
	for _, raw := range in {
		s := strings.TrimSpace(raw)
		if s == "" {
			continue
		}
		res, action, ok := strings.Cut(s, ":")
		if !ok || !slices.Contains(Actions, action) {
			return nil, apperr.Invalidf("scope %q must look like <resource>:read or <resource>:write", s)
		}
		if !slices.ContainsFunc(Resources, func(r Resource) bool { return r.Resource == res }) {
			return nil, apperr.Invalidf("scope %q names an unknown resource; GET /store/api-keys/scopes lists them", s)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out, nil
}
