// Package layers states how storeadmin's packages stack, and its test
// enforces it: each layer imports only the layers below it.
//
// From the bottom:
//
//  1. internal/base/...: ground packages that know nothing of the domain
//     (apperr, handle, pricing, sheets, database, jsonbody, failure,
//     webhooks, secretbox, geo, pgembed, metrics, accesslog, requestid,
//     storeurl); they import only each other.
//  2. migrations and models: the schema, the records, their storage and the
//     rules every caller shares.
//  3. internal/... (abandonment, analytics, auth, audit, billing, customizer, domains,
//     events, experimentreport, experiments, experimentstats, funnelruns, idempotency,
//     insights, loaders, mail, media, payments, placement, previews, ratelimit,
//     recovery, retention, themesettings): the subsystems the surfaces are built from.
//  4. graph, then resolvers and rest (with rest/...: its OpenAPI document
//     and reference page): the API; and internal/storefront, the surface
//     shoppers' browsers call.
//  5. internal/app/...: what assembles everything (server, seed, the bulk
//     filler benchdata, and the black-box test harness apitest).
//  6. cmd/... and internal/bench: the binary, and the benchmark, which
//     runs the whole service.
//
// internal/testkit/... (testdb, testdns, testredis, testsmtp) stands beside the stack: test
// tools any package's tests may use, importing only layers 1 and 2.
package layers
