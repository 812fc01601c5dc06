package previews

import (
	"context"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/testkit/testdb"
)

// Two replicas on one database sign alike: a token one makes, the other
// reads; another key reads none.
func TestReplicasShareTheKey(t *testing.T) {
	db, _ := testdb.New(t)
	ctx := context.Background()
	a, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0).UTC()
	want := Theme{StoreID: 7, ThemeID: 123456789, Expires: now.Add(time.Hour)}
	got, err := b.CheckTheme(a.ThemeToken(want), now)
	if err != nil || got != want {
		t.Fatalf("the other replica read %+v, %v; want %+v", got, err, want)
	}
	stranger, _ := New([]byte(strings.Repeat("s", 32)))
	if _, err := stranger.CheckTheme(a.ThemeToken(want), now); !isUnauthenticated(err) {
		t.Fatalf("another key read the token: %v", err)
	}
}

// Every altered byte of a token is refused, and so is its expiry second.
func TestAlteredAndExpiredTokens(t *testing.T) {
	s, err := New([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0).UTC()
	token := s.ThemeToken(Theme{StoreID: 1, ThemeID: 2, Expires: now.Add(time.Minute)})
	for i := range token {
		b := []byte(token)
		b[i] ^= 1
		if _, err := s.CheckTheme(string(b), now); !isUnauthenticated(err) {
			t.Fatalf("byte %d altered (%q): %v", i, b, err)
		}
	}
	if _, err := s.CheckTheme(token, now.Add(time.Minute-time.Second)); err != nil {
		t.Fatalf("the last second: %v", err)
	}
	_, err = s.CheckTheme(token, now.Add(time.Minute))
	if !isUnauthenticated(err) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("at its expiry: %v", err)
	}
	if _, err := New(make([]byte, 31)); err == nil {
		t.Fatal("a 31-byte key was taken")
	}
}

func TestLifetime(t *testing.T) {
	if d, err := Lifetime(nil); err != nil || d != DefaultLifetime {
		t.Fatalf("none asked: %v, %v", d, err)
	}
	for _, secs := range []int64{299, 604801, -1, 0} {
		if _, err := Lifetime(&secs); err == nil {
			t.Fatalf("%d seconds were taken", secs)
		}
	}
	for _, secs := range []int64{300, 604800} {
		if d, err := Lifetime(&secs); err != nil || d != time.Duration(secs)*time.Second {
			t.Fatalf("%d seconds: %v, %v", secs, d, err)
		}
	}
}

func isUnauthenticated(err error) bool {
	e, ok := err.(*apperr.Error)
	return ok && e.Code == apperr.Unauthenticated
}

func TestMain(m *testing.M) { testdb.Main(m) }

// An arm's token opens that arm, and the purposes do not cross: a theme's
// token never opens an arm (nor an arm's a theme), even one whose ids
// would read as an arm's.
func TestArmTokensAreTheirOwn(t *testing.T) {
	s, err := New([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0).UTC()
	want := Arm{StoreID: 3, ExperimentID: 44, VariantID: 555, Expires: now.Add(time.Hour)}
	arm := s.ArmToken(want)
	if got, err := s.CheckArm(arm, now); err != nil || got != want {
		t.Fatalf("the arm's token read %+v, %v; want %+v", got, err, want)
	}
	if _, err := s.CheckTheme(arm, now); !isUnauthenticated(err) {
		t.Fatalf("an arm's token opened a theme: %v", err)
	}
	theme := s.ThemeToken(Theme{StoreID: 3, ThemeID: 44, Expires: now.Add(time.Hour)})
	if _, err := s.CheckArm(theme, now); !isUnauthenticated(err) {
		t.Fatalf("a theme's token opened an arm: %v", err)
	}
	// The same ids signed as a theme's (the body an arm's would have).
	forged := s.sign(purposeTheme, want.Expires, 3, 44, 555)
	if _, err := s.CheckArm(forged, now); !isUnauthenticated(err) {
		t.Fatalf("ids signed for a theme opened an arm: %v", err)
	}
	if _, err := s.CheckArm(arm, want.Expires); !isUnauthenticated(err) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("at its expiry: %v", err)
	}
}
