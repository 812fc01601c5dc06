package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"storeadmin/internal/base/webhooks"
	"storeadmin/models"
)

// userAgent names the sender, with the version of the body and signatures.
const userAgent = "storeadmin-webhooks/1"

// setHeaders writes the headers of one attempt of delivery t at now: the
// shop's own (X-Shop-*) and the Standard Webhooks ones (webhook-*), both
// signing the exact body sent.
func setHeaders(h http.Header, t *models.DeliveryTarget, now time.Time) {
	ts := strconv.FormatInt(now.Unix(), 10)
	eventID := strconv.FormatInt(t.EventID, 10)
	msgID := messageID(t.EventID)
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", userAgent)
	h.Set("X-Shop-Topic", t.Topic)
	h.Set("X-Shop-Event-Id", eventID)
	h.Set("X-Shop-Delivery-Id", strconv.FormatInt(t.DeliveryID, 10))
	h.Set("X-Shop-Timestamp", ts)
	h.Set("X-Shop-Signature", shopSignature(t.Secret, ts, t.Body))
	h.Set("Webhook-Id", msgID)
	h.Set("Webhook-Timestamp", ts)
	h.Set("Webhook-Signature", standardSignature(t.Secret, msgID, ts, t.Body))
}

// messageID is the Standard Webhooks message id: the event's, so it is the
// same on every retry and receivers can drop duplicates by it.
func messageID(eventID int64) string { return "evt_" + strconv.FormatInt(eventID, 10) }

// shopSignature is X-Shop-Signature: lowercase hex of HMAC-SHA256 keyed
// with the secret exactly as shown ("whsec_..."), over "<timestamp>.<body>".
// The timestamp inside the signed bytes lets receivers refuse replays.
func shopSignature(secret, ts, body string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + body))
	return hex.EncodeToString(mac.Sum(nil))
}

// standardSignature is the Standard Webhooks webhook-signature: "v1," and
// the standard base64 of HMAC-SHA256 keyed with the secret's bytes (the
// base64 after "whsec_"), over "<id>.<timestamp>.<body>".
func standardSignature(secret, msgID, ts, body string) string {
	mac := hmac.New(sha256.New, standardKey(secret))
	mac.Write([]byte(msgID + "." + ts + "." + body))
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// standardKey decodes the secret's key. A secret that is not base64 (none
// is, as NewSecret makes them) keys with its text, so it still signs.
func standardKey(secret string) []byte {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, webhooks.SecretPrefix))
	if err != nil {
		return []byte(secret)
	}
	return key
}
