package models

import (
	"context"
	"crypto/rand"

	"github.com/uptrace/bun"
)

// ServiceSecret returns the service-wide secret called name, creating a
// random 32-byte one on first use. Every replica reads the same value, so
// a URL one signs another accepts.
func ServiceSecret(ctx context.Context, db bun.IDB, name string) ([]byte, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	if _, err := db.NewRaw("INSERT INTO service_secrets (name, secret) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", name, fresh).Exec(ctx); err != nil {
		return nil, err
	}
	var secret []byte
	err := db.NewRaw("SELECT secret FROM service_secrets WHERE name = ?", name).Scan(ctx, &secret)
	return secret, err
}
