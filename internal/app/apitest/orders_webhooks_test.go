package apitest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// Order changes reach subscribers: the events of cancel, refund and
// fulfil, over the real HTTP surface and the real engine. Receivers are
// webhookReceiver (webhooks_test.go); orders come from createOrder.

// owOrderTopics are the order topics a subscriber can choose.
var owOrderTopics = []string{"order.paid", "order.refunded", "order.fulfilled", "order.cancelled"}

// owSettleWithin bounds every wait: generous, since a loaded 2-core machine
// may take seconds where an idle one takes milliseconds. Waits poll; none
// sleeps for a fixed time.
const owSettleWithin = 2 * time.Minute

// orderEvent is one webhook request as a subscriber decodes it.
type orderEvent struct {
	id, deliveryID int64
	topic          string
	order          map[string]any // data.order
	req            receivedWebhook
}

// decodeOrderEvent checks a request as a subscriber would (both signatures with the
// secret the API showed, the headers agreeing with the body, the body's
// envelope) and decodes it.
func decodeOrderEvent(t *testing.T, storeID int64, secret string, r receivedWebhook) orderEvent {
	t.Helper()
	verifySignature(t, secret, r)
	var body map[string]any
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("webhook body is not a JSON object: %v\n%s", err, r.body)
	}
	if keys := sortedKeys(body); !reflect.DeepEqual(keys, []string{"created_at", "data", "id", "store_id", "topic"}) {
		t.Fatalf("webhook body fields %v: %s", keys, r.body)
	}
	ev := orderEvent{id: wholeNumber(t, body["id"]), req: r}
	ev.topic, _ = body["topic"].(string)
	h := r.header
	eventID := strconv.FormatInt(ev.id, 10)
	if h.Get("X-Shop-Topic") != ev.topic || h.Get("X-Shop-Event-Id") != eventID || h.Get("Webhook-Id") != "evt_"+eventID {
		t.Fatalf("headers disagree with the body (topic %q, id %s): X-Shop-Topic %q, X-Shop-Event-Id %q, webhook-id %q",
			ev.topic, eventID, h.Get("X-Shop-Topic"), h.Get("X-Shop-Event-Id"), h.Get("Webhook-Id"))
	}
	if h.Get("Content-Type") != "application/json" || h.Get("User-Agent") != "storeadmin-webhooks/1" {
		t.Fatalf("Content-Type %q, User-Agent %q", h.Get("Content-Type"), h.Get("User-Agent"))
	}
	// The timestamp is inside the signed bytes; a subscriber refuses a
	// stale one, so it must be this attempt's time.
	ts, err := strconv.ParseInt(h.Get("X-Shop-Timestamp"), 10, 64)
	if err != nil || h.Get("Webhook-Timestamp") != h.Get("X-Shop-Timestamp") || time.Since(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		t.Fatalf("X-Shop-Timestamp %q, webhook-timestamp %q", h.Get("X-Shop-Timestamp"), h.Get("Webhook-Timestamp"))
	}
	if ev.deliveryID, err = strconv.ParseInt(h.Get("X-Shop-Delivery-Id"), 10, 64); err != nil || ev.deliveryID <= 0 {
		t.Fatalf("X-Shop-Delivery-Id %q", h.Get("X-Shop-Delivery-Id"))
	}
	if got := wholeNumber(t, body["store_id"]); got != storeID {
		t.Fatalf("store_id %d, want %d", got, storeID)
	}
	// RFC 3339, UTC, whole seconds.
	created, _ := body["created_at"].(string)
	if at, err := time.Parse(time.RFC3339, created); err != nil || at.UTC().Format(time.RFC3339) != created {
		t.Fatalf("created_at %q is not RFC 3339 in UTC to the second", created)
	}
	data := objectWithKeys(t, "data", body["data"], []string{"order"})
	ev.order = objectWithKeys(t, "data.order", data["order"], orderDetailKeys)
	return ev
}

// owGetOrder is GET /store/orders/{id}'s order.
func owGetOrder(t *testing.T, e *apitest.Env, key string, id int64) map[string]any {
	t.Helper()
	return objectWithKeys(t, "order", e.Do(http.MethodGet, orderPath(id), key, nil).Expect(t, http.StatusOK).Obj("order"), orderDetailKeys)
}

// owRefundedQuantities maps an order view's line ids to refunded_quantity.
func owRefundedQuantities(t *testing.T, o map[string]any) map[int64]int64 {
	t.Helper()
	out := map[int64]int64{}
	for _, v := range o["line_items"].([]any) {
		l := v.(map[string]any)
		out[wholeNumber(t, l["id"])] = wholeNumber(t, l["refunded_quantity"])
	}
	return out
}

// owRefundTxs counts an order view's refund transactions.
func owRefundTxs(o map[string]any) int {
	n := 0
	for _, v := range o["transactions"].([]any) {
		if v.(map[string]any)["kind"] == "refund" {
			n++
		}
	}
	return n
}

// owSameOrder fails unless an event's order is the order GET answered right
// after the change: first the fields a subscriber acts on, for a readable
// failure, then the whole view (the payload is the REST detail view).
func owSameOrder(t *testing.T, topic string, got, want map[string]any) {
	t.Helper()
	for _, k := range []string{"id", "status", "financial_status", "fulfillment_status"} {
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Fatalf("%s: data.order.%s = %v, GET answered %v", topic, k, got[k], want[k])
		}
	}
	if g, w := owRefundedQuantities(t, got), owRefundedQuantities(t, want); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: refunded quantities by line %v, GET answered %v", topic, g, w)
	}
	if g, w := len(got["transactions"].([]any)), len(want["transactions"].([]any)); g != w {
		t.Fatalf("%s: %d transactions, GET answered %d", topic, g, w)
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Fatalf("%s: data.order is not GET /store/orders/{id}:\nevent: %s\nGET:   %s", topic, gj, wj)
	}
}

// owDeliveries is GET /store/webhooks/{id}/deliveries, newest first.
func owDeliveries(t *testing.T, e *apitest.Env, key string, subID int64) []map[string]any {
	t.Helper()
	r := e.Do(http.MethodGet, webhookPath(subID, "/deliveries"), key, nil).Expect(t, http.StatusOK)
	var out []map[string]any
	for _, v := range r.List("deliveries") {
		out = append(out, v.(map[string]any))
	}
	if total := wholeNumber(t, r.Body["total"]); total != int64(len(out)) {
		t.Fatalf("deliveries: total %d, %d listed", total, len(out))
	}
	return out
}

// owJobsSettled reports whether the engine has nothing left to run: every
// River job of the test's database is finished. Read from the database, not
// the API, because it is the engine's own state: once it holds, a duplicate
// send would already have reached its receiver.
func owJobsSettled(t *testing.T, e *apitest.Env) bool {
	t.Helper()
	n, err := e.DB.NewSelect().Table("river_job").Where("state NOT IN ('completed', 'cancelled', 'discarded')").Count(context.Background())
	if err != nil {
		t.Fatalf("count unfinished jobs: %v", err)
	}
	return n == 0
}

// settledDeliveries polls until the subscription has want deliveries, none pending,
// and the engine is idle, and returns them newest first. More than want is
// a failure at once: a delivery too many is never going away.
func settledDeliveries(t *testing.T, e *apitest.Env, key string, subID int64, want int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(owSettleWithin)
	for {
		ds := owDeliveries(t, e, key, subID)
		if len(ds) > want {
			t.Fatalf("subscription %d has %d deliveries, want %d: %v", subID, len(ds), want, ds)
		}
		done := len(ds) == want
		for _, d := range ds {
			done = done && d["status"] != models.DeliveryPending
		}
		if done && owJobsSettled(t, e) {
			return ds
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries of subscription %d did not settle within %v: %v", subID, owSettleWithin, ds)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// owCheckDelivery fails unless a listed delivery is ev's, succeeded after
// attempts attempts.
func owCheckDelivery(t *testing.T, d map[string]any, ev orderEvent, attempts int64) {
	t.Helper()
	if wholeNumber(t, d["id"]) != ev.deliveryID || wholeNumber(t, d["event_id"]) != ev.id || d["topic"] != ev.topic ||
		d["status"] != models.DeliverySucceeded || wholeNumber(t, d["attempts"]) != attempts ||
		wholeNumber(t, d["last_status_code"]) != 200 || d["last_error"] != "" {
		t.Fatalf("delivery %v; want id %d, event %d, topic %s, succeeded after %d attempts with 200 and no error",
			d, ev.deliveryID, ev.id, ev.topic, attempts)
	}
}

// expectNoMoreDeliveries fails if the receiver holds a request nobody expected. Call it
// once settledDeliveries returned: by then any duplicate has arrived.
func expectNoMoreDeliveries(t *testing.T, r *webhookReceiver) {
	t.Helper()
	select {
	case got := <-r.got:
		t.Fatalf("an extra webhook arrived: %s event %s: %s", got.header.Get("X-Shop-Topic"), got.header.Get("X-Shop-Event-Id"), got.body)
	default:
	}
}

// owFlakyReceiver is a webhookReceiver that answers 500 to its first fails
// requests and 200 after; it keeps every request, failed ones included.
func owFlakyReceiver(t *testing.T, fails int64) *webhookReceiver {
	r := &webhookReceiver{got: make(chan receivedWebhook, 16)}
	var n atomic.Int64
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.got <- receivedWebhook{header: req.Header.Clone(), body: body}
		if n.Add(1) <= fails {
			http.Error(w, "receiver down", http.StatusInternalServerError)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

// TestOrderEventsDeliveredOncePerSubscription: cancel, refund and fulfil
// each emit their topic; every subscription of the topic gets the event
// once, signed with its own secret, carrying the order as GET shows it.
func TestOrderEventsDeliveredOncePerSubscription(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	everything, refunds := newWebhookReceiver(t), newWebhookReceiver(t)
	allSub := createWebhook(t, e, admin, map[string]any{"url": everything.URL + "/all", "topics": owOrderTopics})
	refSub := createWebhook(t, e, admin, map[string]any{"url": refunds.URL + "/refunds", "topics": []string{"order.refunded"}})
	// One customer each: a change to one order cannot alter another's view
	// (its customer's orders) between the GET and the event.
	a := createOrder(t, e, s.ID, orderSpec{email: "a@example.com"})
	b := createOrder(t, e, s.ID, orderSpec{email: "b@example.com"})
	c := createOrder(t, e, s.ID, orderSpec{email: "c@example.com"})

	// The order each topic must carry: GET right after the change.
	want := map[string]map[string]any{}
	e.Do(http.MethodPost, orderPath(a.ID, "/cancel"), admin, map[string]any{"reason": "customer"}).Expect(t, http.StatusOK)
	want["order.cancelled"] = owGetOrder(t, e, admin, a.ID)
	tee := orderLines(t, e, b)[0]
	e.Do(http.MethodPost, orderPath(b.ID, "/refund"), admin, map[string]any{
		"amount_cents": 1000, "line_items": []any{map[string]any{"line_item_id": tee.ID, "quantity": 1}},
	}).Expect(t, http.StatusOK)
	want["order.refunded"] = owGetOrder(t, e, admin, b.ID)
	e.Do(http.MethodPost, orderPath(c.ID, "/fulfillments"), admin, map[string]any{"carrier": "UPS", "tracking_number": "1Z1"}).Expect(t, http.StatusCreated)
	want["order.fulfilled"] = owGetOrder(t, e, admin, c.ID)
	// The snapshots show the changes, so comparing with them means something.
	if o := want["order.cancelled"]; o["status"] != "cancelled" {
		t.Fatalf("cancelled order: %v", o["status"])
	}
	if o := want["order.refunded"]; o["financial_status"] != "partially_refunded" || owRefundedQuantities(t, o)[tee.ID] != 1 || owRefundTxs(o) != 1 {
		t.Fatalf("refunded order: %v, lines %v, %d refunds", o["financial_status"], owRefundedQuantities(t, o), owRefundTxs(o))
	}
	if o := want["order.fulfilled"]; o["fulfillment_status"] != "fulfilled" {
		t.Fatalf("fulfilled order: %v", o["fulfillment_status"])
	}

	// receive takes the requests a subscription should get, one per topic,
	// and checks them and its deliveries.
	receive := func(rcv *webhookReceiver, sub map[string]any, topics []string) map[string]orderEvent {
		t.Helper()
		got := map[string]orderEvent{}
		for range topics {
			ev := decodeOrderEvent(t, s.ID, sub["secret"].(string), rcv.next(t))
			if !slices.Contains(topics, ev.topic) {
				t.Fatalf("subscription to %v got %s", topics, ev.topic)
			}
			if prev, dup := got[ev.topic]; dup {
				t.Fatalf("%s arrived twice (events %d and %d)", ev.topic, prev.id, ev.id)
			}
			owSameOrder(t, ev.topic, ev.order, want[ev.topic])
			got[ev.topic] = ev
		}
		subID := wholeNumber(t, sub["id"])
		ds := settledDeliveries(t, e, admin, subID, len(topics))
		expectNoMoreDeliveries(t, rcv)
		for _, d := range ds {
			owCheckDelivery(t, d, got[d["topic"].(string)], 1)
		}
		return got
	}
	all := receive(everything, allSub, []string{"order.cancelled", "order.refunded", "order.fulfilled"})
	ref := receive(refunds, refSub, []string{"order.refunded"})

	// One refund is one event: both subscriptions get its id and its very
	// bytes, each in a delivery of its own.
	x, y := all["order.refunded"], ref["order.refunded"]
	if x.id != y.id || !bytes.Equal(x.req.body, y.req.body) || x.deliveryID == y.deliveryID {
		t.Fatalf("the refund reached the subscriptions as events %d and %d, deliveries %d and %d, bodies equal %v",
			x.id, y.id, x.deliveryID, y.deliveryID, bytes.Equal(x.req.body, y.req.body))
	}
}

// TestOrderEventRetriedUntilReceiverRecovers: a receiver that fails twice
// gets the refund's event a third time, the same event with the same body,
// and the delivery records the three attempts and the success.
func TestOrderEventRetriedUntilReceiverRecovers(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	rcv := owFlakyReceiver(t, 2)
	sub := createWebhook(t, e, admin, map[string]any{"url": rcv.URL, "topics": []string{"order.refunded"}})
	o := createOrder(t, e, s.ID, orderSpec{})
	e.Do(http.MethodPost, orderPath(o.ID, "/refund"), admin, map[string]any{"amount_cents": 500}).Expect(t, http.StatusOK)
	order := owGetOrder(t, e, admin, o.ID)

	var attempts []orderEvent
	for range 3 {
		attempts = append(attempts, decodeOrderEvent(t, s.ID, sub["secret"].(string), rcv.next(t)))
	}
	first := attempts[0]
	for i, ev := range attempts {
		if ev.id != first.id || ev.deliveryID != first.deliveryID || ev.topic != "order.refunded" || !bytes.Equal(ev.req.body, first.req.body) {
			t.Fatalf("attempt %d is event %d (%s) of delivery %d; attempt 1 was event %d of delivery %d, body equal %v",
				i+1, ev.id, ev.topic, ev.deliveryID, first.id, first.deliveryID, bytes.Equal(ev.req.body, first.req.body))
		}
	}
	owSameOrder(t, "order.refunded", first.order, order)

	ds := settledDeliveries(t, e, admin, wholeNumber(t, sub["id"]), 1)
	expectNoMoreDeliveries(t, rcv)
	owCheckDelivery(t, ds[0], first, 3)
}

// TestOrderEventSurvivesRestart: a cancellation committed while no worker
// runs (the server died between the commit and the delivery) is delivered,
// once, by the next engine started on the database.
func TestOrderEventSurvivesRestart(t *testing.T) {
	e := apitest.New(t, apitest.WithoutEventWorkers())
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	rcv := newWebhookReceiver(t)
	sub := createWebhook(t, e, admin, map[string]any{"url": rcv.URL, "topics": []string{"order.cancelled"}})
	subID := wholeNumber(t, sub["id"])
	o := createOrder(t, e, s.ID, orderSpec{})
	e.Do(http.MethodPost, orderPath(o.ID, "/cancel"), admin, map[string]any{"reason": "inventory"}).Expect(t, http.StatusOK)
	order := owGetOrder(t, e, admin, o.ID)

	// The delivery was committed with the change, so it is listed as soon
	// as the cancel has answered; nothing can have been sent.
	ds := owDeliveries(t, e, admin, subID)
	if len(ds) != 1 || ds[0]["status"] != models.DeliveryPending || wholeNumber(t, ds[0]["attempts"]) != 0 || ds[0]["topic"] != "order.cancelled" {
		t.Fatalf("deliveries without workers: %v", ds)
	}
	expectNoMoreDeliveries(t, rcv)

	e.StartEventWorkers()
	ev := decodeOrderEvent(t, s.ID, sub["secret"].(string), rcv.next(t))
	if ev.topic != "order.cancelled" || ev.id != wholeNumber(t, ds[0]["event_id"]) || ev.deliveryID != wholeNumber(t, ds[0]["id"]) {
		t.Fatalf("got %s event %d delivery %d; listed %v", ev.topic, ev.id, ev.deliveryID, ds[0])
	}
	owSameOrder(t, ev.topic, ev.order, order)
	ds = settledDeliveries(t, e, admin, subID, 1)
	expectNoMoreDeliveries(t, rcv)
	owCheckDelivery(t, ds[0], ev, 1)
}

// TestRefundIdempotencyKey: a refund retried with its Idempotency-Key, on
// either surface, refunds once and emits one event.
func TestRefundIdempotencyKey(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	rcv := newWebhookReceiver(t)
	sub := createWebhook(t, e, admin, map[string]any{"url": rcv.URL, "topics": []string{"order.refunded"}})
	o := createOrder(t, e, s.ID, orderSpec{}) // 62.00 paid
	k1 := map[string]string{"Idempotency-Key": "k1"}
	body := map[string]any{"amount_cents": 1500, "reason": "late delivery"}

	first := e.DoHeaders(http.MethodPost, orderPath(o.ID, "/refund"), admin, body, k1).Expect(t, http.StatusOK)
	if first.Header.Get(replayedHeader) != "" {
		t.Fatalf("the first answer says %s: %s", replayedHeader, first.Header.Get(replayedHeader))
	}
	again := e.DoHeaders(http.MethodPost, orderPath(o.ID, "/refund"), admin, body, k1).Expect(t, http.StatusOK)
	if !bytes.Equal(again.Raw, first.Raw) || again.Header.Get(replayedHeader) != "true" {
		t.Fatalf("retry: %s (%s %q); first %s", again.Raw, replayedHeader, again.Header.Get(replayedHeader), first.Raw)
	}
	// The same key for another amount is another request; the key already
	// names one, so a retried /graphql mutation under it cannot run either.
	if c := e.DoHeaders(http.MethodPost, orderPath(o.ID, "/refund"), admin, map[string]any{"amount_cents": 1600, "reason": "late delivery"}, k1).Expect(t, http.StatusConflict); c.Message() != "this Idempotency-Key was used for a different request; use a new key for a new request" {
		t.Fatalf("409 message %q", c.Message())
	}
	const mutation = `mutation Refund($id: Int!, $input: RefundInput!) { refundOrder(id: $id, input: $input) { id amount_cents order_financial_status } }`
	vars := map[string]any{"id": o.ID, "input": map[string]any{"amount_cents": 700}}
	if c := e.GraphQLOp(admin, mutation, "Refund", vars, k1); c.Status != http.StatusConflict || c.ErrorCode() != "CONFLICT" {
		t.Fatalf("k1 on /graphql: %d %s", c.Status, c.Raw)
	}
	if d := owGetOrder(t, e, admin, o.ID); owRefundTxs(d) != 1 || d["financial_status"] != "partially_refunded" {
		t.Fatalf("after a retried refund: %d refund transactions, %v", owRefundTxs(d), d["financial_status"])
	}

	// GraphQL: the mutation twice under one key refunds once.
	g1 := map[string]string{"Idempotency-Key": "g1"}
	gFirst := e.GraphQLOp(admin, mutation, "Refund", vars, g1)
	if gFirst.Status != http.StatusOK || gFirst.Body["errors"] != nil || gFirst.Header.Get(replayedHeader) != "" {
		t.Fatalf("refundOrder: %d %s", gFirst.Status, gFirst.Raw)
	}
	gAgain := e.GraphQLOp(admin, mutation, "Refund", vars, g1)
	if gAgain.Status != http.StatusOK || !bytes.Equal(gAgain.Raw, gFirst.Raw) || gAgain.Header.Get(replayedHeader) != "true" {
		t.Fatalf("refundOrder retry: %d %s (%s %q); first %s", gAgain.Status, gAgain.Raw, replayedHeader, gAgain.Header.Get(replayedHeader), gFirst.Raw)
	}
	d := owGetOrder(t, e, admin, o.ID)
	var amounts []int64
	for _, v := range d["transactions"].([]any) {
		if tx := v.(map[string]any); tx["kind"] == "refund" {
			amounts = append(amounts, wholeNumber(t, tx["amount_cents"]))
		}
	}
	slices.Sort(amounts)
	if !slices.Equal(amounts, []int64{700, 1500}) {
		t.Fatalf("refund transactions %v, want one of 1500 (REST) and one of 700 (GraphQL)", amounts)
	}

	// One order.refunded per refund that ran: two, not four.
	var evs []orderEvent
	for range 2 {
		evs = append(evs, decodeOrderEvent(t, s.ID, sub["secret"].(string), rcv.next(t)))
	}
	ds := settledDeliveries(t, e, admin, wholeNumber(t, sub["id"]), 2)
	expectNoMoreDeliveries(t, rcv)
	if evs[0].id == evs[1].id {
		t.Fatalf("the same event %d arrived twice", evs[0].id)
	}
	refunds := []int{owRefundTxs(evs[0].order), owRefundTxs(evs[1].order)}
	slices.Sort(refunds)
	if !slices.Equal(refunds, []int{1, 2}) {
		t.Fatalf("the events' orders hold %v refunds, want one event after each refund", refunds)
	}
	for _, dl := range ds {
		ev := evs[0]
		if wholeNumber(t, dl["id"]) == evs[1].deliveryID {
			ev = evs[1]
		}
		owCheckDelivery(t, dl, ev, 1)
	}
}

// A cancellation that refunds money announces the refund too: a subscriber
// to order.refunded alone must hear of every refund.
func TestOrderCancelWithRefundEmitsRefunded(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	rcv := newWebhookReceiver(t)
	sub := createWebhook(t, e, admin, map[string]any{"url": rcv.URL, "topics": []string{"order.refunded", "order.cancelled"}})
	subID := wholeNumber(t, sub["id"])
	o := createOrder(t, e, s.ID, orderSpec{})
	e.Do(http.MethodPost, orderPath(o.ID, "/cancel"), admin, map[string]any{"refund": true}).Expect(t, http.StatusOK)
	topics := map[string]bool{}
	for range 2 {
		ev := decodeOrderEvent(t, s.ID, sub["secret"].(string), rcv.next(t))
		topics[ev.topic] = true
		if ev.order["status"] != "cancelled" || ev.order["financial_status"] != "refunded" {
			t.Fatalf("%s payload: status %v, financial_status %v", ev.topic, ev.order["status"], ev.order["financial_status"])
		}
	}
	if !topics["order.cancelled"] || !topics["order.refunded"] {
		t.Fatalf("topics %v", topics)
	}
	settledDeliveries(t, e, admin, subID, 2)
	expectNoMoreDeliveries(t, rcv)

	// Without money to give back (nothing captured), only the cancellation.
	p := createOrder(t, e, s.ID, orderSpec{payment: "pending"})
	e.Do(http.MethodPost, orderPath(p.ID, "/cancel"), admin, map[string]any{"refund": true}).Expect(t, http.StatusOK)
	if ev := decodeOrderEvent(t, s.ID, sub["secret"].(string), rcv.next(t)); ev.topic != "order.cancelled" {
		t.Fatalf("topic %s", ev.topic)
	}
	settledDeliveries(t, e, admin, subID, 3)
	expectNoMoreDeliveries(t, rcv)
}
