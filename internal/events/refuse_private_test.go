package events

import (
	"errors"
	"testing"
)

// TestRefusePrivateUsesTheTargetRule: the dialer's check refuses what the
// subscription check refuses (internal/base/webhooks), IPv4 inside IPv6
// included, and lets public addresses through. It is called as the dialer
// would, with the resolved address; nothing is dialled.
func TestRefusePrivateUsesTheTargetRule(t *testing.T) {
	refused := map[string]string{
		"0.0.0.1:80":            "0.0.0.1",
		"255.255.255.255:443":   "255.255.255.255",
		"[::7f00:1]:80":         "::7f00:1",
		"[64:ff9b::7f00:1]:80":  "64:ff9b::7f00:1",
		"[::ffff:127.0.0.1]:80": "127.0.0.1",
		"[2002:a00:1::1]:80":    "2002:a00:1::1",
		"[fe80::1%lo]:80":       "fe80::1%lo",
		"192.0.2.10:8080":       "192.0.2.10",
		"[2001:db8::1]:443":     "2001:db8::1",
		"[64:ff9b:1::a00:1]:80": "64:ff9b:1::a00:1",
		"169.254.169.254:80":    "169.254.169.254",
	}
	for address, ip := range refused {
		var private *privateTargetError
		if err := refusePrivate("tcp", address, nil); !errors.As(err, &private) || err.Error() != "target address "+ip+" is private" {
			t.Errorf("refusePrivate(%s) = %v, want target address %s is private", address, err, ip)
		}
	}
	for _, address := range []string{"93.184.215.14:443", "[2606:4700::1111]:443", "[64:ff9b::808:808]:80"} {
		if err := refusePrivate("tcp", address, nil); err != nil {
			t.Errorf("refusePrivate(%s) = %v, want it allowed", address, err)
		}
	}
}
