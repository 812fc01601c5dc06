package resolvers

import (
	"strings"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Bounds of the email settings: the sender's name is bounded as a store's
// name is (its default), an address by RFC 5321's 254 characters.
const (
	maxEmailFromName = 255
	maxEmailAddress  = 254
)

// checkEmailSettings checks input and returns the values it sets, cleaned
// (nil: left out). The sender's name goes into the From header of every
// email, so it must be one line: a line break there would let whoever sets
// it add headers.
func checkEmailSettings(in graph.EmailSettingsInput) (fromName, replyTo *string, err error) {
	if in.FromName != nil {
		name, err := text("from_name", *in.FromName, maxEmailFromName, true)
		if err != nil {
			return nil, nil, err
		}
		if strings.ContainsFunc(name, models.BreaksHeader) {
			return nil, nil, apperr.Invalidf("from_name must be one line of text, without line breaks, tabs or other control characters")
		}
		fromName = &name
	}
	if in.ReplyTo != nil {
		addr, err := email("reply_to", *in.ReplyTo, false)
		if err != nil {
			return nil, nil, err
		}
		if len(addr) > maxEmailAddress {
			return nil, nil, apperr.Invalidf("reply_to must be at most %d characters", maxEmailAddress)
		}
		replyTo = &addr
	}
	return fromName, replyTo, nil
}
