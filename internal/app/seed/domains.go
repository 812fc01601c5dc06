package seed

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// domains seeds the store's two custom domains under the reserved .example
// top-level domain, named after its handle (hostnames are unique across
// stores, as handles are): www.<handle>.example, the primary, connected
// (its check recorded as found pointing here with its TXT record, as a
// verify would store it), and shop.<handle>.example, pending. Both are
// subdomains, which every deployment serves (an apex needs --domain-ipv4).
// The demo's check is recorded, not looked up: seeding sends nothing.
func domains(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	n, err := models.CountDomains(ctx, tx, storeID)
	if err != nil || n > 0 {
		return err
	}
	store, err := models.GetStore(ctx, tx, storeID)
	if err != nil {
		return err
	}
	www := &models.Domain{StoreID: storeID, Hostname: "www." + store.Handle + ".example"}
	if err := models.CreateDomain(ctx, tx, www); err != nil { // the first: primary
		return err
	}
	connected := models.DomainCheck{Owned: true, DNS: models.DomainDNSCheck{State: models.DNSPointed,
		Detail: "seeded as connected: the demo's records are not looked up"}}
	if _, err := models.RecordDomainCheck(ctx, tx, storeID, www.ID, connected, now.Add(-time.Hour)); err != nil {
		return err
	}
	return models.CreateDomain(ctx, tx, &models.Domain{StoreID: storeID, Hostname: "shop." + store.Handle + ".example"})
}
