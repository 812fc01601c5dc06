package ratelimit

import (
	"context"
	"strings"
	"testing"

	"storeadmin/internal/base/apperr"
)

// TestRedisURLErrorHidesPassword: a URL that does not parse is refused
// without its password in the message, which ends up in logs.
func TestRedisURLErrorHidesPassword(t *testing.T) {
	for _, u := range []string{"redis://user:s3cret@[::1", "redis://user:s3cret@127.0.0.1:6379/notanumber", "http://user:s3cret@127.0.0.1/"} {
		_, err := New(Config{Limit: 10, RedisURL: u})
		if err == nil {
			t.Fatalf("%s: accepted", u)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("%s: the error shows the password: %v", u, err)
		}
	}
}

// TestSpendWithoutBudget: operations the service runs for itself carry no
// budget and spend nothing, but the cap on one request's cost still holds.
func TestSpendWithoutBudget(t *testing.T) {
	if err := Spend(context.Background(), MaxCost); err != nil {
		t.Fatalf("Spend(%d) without a budget: %v", MaxCost, err)
	}
	if err := Spend(context.Background(), MaxCost+1); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("Spend(%d) without a budget: %v, want %s", MaxCost+1, err, apperr.Invalid)
	}
}
