// Package analytics computes the store's reports: the sales overview,
// traffic and landing pages, sales by product, the live view and the daily
// insights (README "Analytics" defines every figure).
//
// # Windows
//
// A report reads a Window: instants [From, To) in the store's time zone,
// bucketed by hour, day, week (from Monday) or month; a day is the store's
// local day, so a DST day has 23 or 25 hours. Every bucket has a point,
// zeros included. Previous is the window of the same length just before.
//
// # Rollups and the raw rows
//
// The raw rows (orders, their lines, refunds, storefront sessions) are the
// truth. Rollup tables keep their sums per store, 15-minute UTC slot (Slot)
// and dimension, maintained by triggers in the transaction that changes the
// raw rows, so a report never lags. A report sums the slots its window
// covers whole and reads the raw rows only for a window's ragged edges (a
// date-time not on a quarter hour; Span.Split); every report also has a
// path from the raw rows alone, which the check (storeadmin analytics
// check) and the tests compare the rollups with.
package analytics
