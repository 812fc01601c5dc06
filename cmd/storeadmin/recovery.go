package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/uptrace/bun"

	"storeadmin/internal/recovery"
)

// openRecovery builds the recovery reminders (recovery.Open), saying so
// when mail has no SMTP server to go to.
func openRecovery(ctx context.Context, db *bun.DB, smtpURL, platformDomain, publicURL string, log *slog.Logger) (*recovery.Service, error) {
	s, err := recovery.Open(ctx, db, smtpURL, platformDomain, publicURL, log)
	if err != nil {
		return nil, fmt.Errorf("--smtp-url: %w", err)
	}
	if smtpURL == "" {
		log.Warn("no SMTP server (--smtp-url, STOREADMIN_SMTP_URL): mail to shoppers goes to the mail_outbox table and the log")
	}
	return s, nil
}
