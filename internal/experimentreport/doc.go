// Package experimentreport computes the A/B tests' reports (README "A/B
// tests": "The report", "Power", "The pooled report"): SQL aggregations
// over the exposures and the sessions, carts, checkouts and orders that
// follow them, a fixed handful of statements whatever the traffic, whose
// sums go through internal/experimentstats.
package experimentreport
