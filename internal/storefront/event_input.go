package storefront

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// The event schema's limits, which GET /config tells a tracker too.
const (
	// MaxBatch is the most events one POST /events carries.
	MaxBatch = 500
	// MaxClockSkew is how far in the future an event's time may be: a
	// browser's clock runs a little fast.
	MaxClockSkew = 5 * time.Minute
	// MaxEventAge is how old an event posted over HTTP may be: a tracker
	// retries a batch it could not send for days (offline phones), never
	// for longer. The import takes history of any age.
	MaxEventAge = 7 * 24 * time.Hour
)

// The events a tracker may send.
const (
	EventPageView       = "page_view"
	EventProductView    = "product_view"
	EventSearch         = "search"
	EventClick          = "click"
	EventAddToCart      = "add_to_cart"
	EventRemoveFromCart = "remove_from_cart"
	EventCheckoutStep   = "checkout_step"
	// EventExperimentView: the shopper saw an A/B test's surface (its
	// experiment, the test's key), an exposure (experiments_exposures.go).
	EventExperimentView = "experiment_view"
)

var eventNames = []string{EventPageView, EventProductView, EventSearch, EventClick, EventAddToCart, EventRemoveFromCart, EventCheckoutStep, EventExperimentView}

// utmKeys and clickIDKeys are the campaign parameters and advertising
// click ids a landing URL carries and sessions keep.
var (
	utmKeys     = []string{"source", "medium", "campaign", "term", "content", "id"}
	clickIDKeys = []string{"gclid", "gbraid", "wbraid", "dclid", "fbclid", "msclkid", "ttclid", "twclid", "li_fat_id", "epik", "sccid", "yclid"}
)

// EventInput is one event as a tracker sends it (see the README's
// "Storefront surface" for each field).
type EventInput struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	VisitorID     string            `json:"visitor_id"`
	SessionID     string            `json:"session_id"`
	Time          string            `json:"time"`
	Path          *string           `json:"path"`
	Referrer      *string           `json:"referrer"`
	UTM           map[string]string `json:"utm"`
	ClickIDs      map[string]string `json:"click_ids"`
	DwellMS       *int64            `json:"dwell_ms"`
	ScrollPct     *int64            `json:"scroll_pct"`
	ProductID     *int64            `json:"product_id"`
	VariantID     *int64            `json:"variant_id"`
	ProductTitle  *string           `json:"product_title"`
	Query         *string           `json:"query"`
	ResultCount   *int64            `json:"result_count"`
	Element       *ElementInput     `json:"element"`
	Quantity      *int64            `json:"quantity"`
	ValueCents    *int64            `json:"value_cents"`
	Currency      *string           `json:"currency"`
	Step          *string           `json:"step"`
	CartToken     *string           `json:"cart_token"`
	CheckoutToken *string           `json:"checkout_token"`
	Device        *DeviceInput      `json:"device"`
	Experiment    *string           `json:"experiment"`
	Preview       *string           `json:"preview"`
	Consent       *bool             `json:"consent"`
}

// ElementInput is the element a click event clicked.
type ElementInput struct {
	Selector *string `json:"selector"`
	Text     *string `json:"text"`
}

// DeviceInput is what the browser says of its screen and settings.
type DeviceInput struct {
	ScreenW   *int64  `json:"screen_w"`
	ScreenH   *int64  `json:"screen_h"`
	ViewportW *int64  `json:"viewport_w"`
	ViewportH *int64  `json:"viewport_h"`
	Language  *string `json:"language"`
	Timezone  *string `json:"timezone"`
}

// window is the times an event may carry.
type window struct{ from, to time.Time }

// decodeStrict decodes raw (one JSON object) into v, refusing fields v
// does not have; errors name their field under at ("events[3]"), or speak
// of the whole ("the body", "the line") when at is empty.
func decodeStrict(raw []byte, v any, at, whole string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && join(at, typ.Field) != "" {
		field := join(at, typ.Field)
		return apperr.InvalidField(field, "must be %s", kindOf(typ.Type.String()))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		field := join(at, strings.Trim(name, `"`))
		return apperr.InvalidField(field, "is not a field of an event")
	}
	problem := "must be a JSON object"
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		problem = "is not valid JSON: " + syn.Error()
	case errors.Is(err, io.ErrUnexpectedEOF):
		problem = "is not valid JSON: it ends too early"
	}
	if at == "" {
		return apperr.New(apperr.BadRequest, "%s %s", whole, problem)
	}
	return apperr.InvalidField(at, "%s", problem)
}

func join(at, field string) string {
	if at == "" {
		return field
	}
	if field == "" {
		return at
	}
	return at + "." + field
}

// kindOf words a Go type's name as the JSON it decodes from.
func kindOf(goType string) string {
	switch {
	case strings.HasSuffix(goType, "string") && strings.HasPrefix(goType, "map"):
		return "an object of strings"
	case strings.HasSuffix(goType, "string"):
		return "a string"
	case strings.HasSuffix(goType, "int64"):
		return "an integer"
	case strings.HasSuffix(goType, "bool"):
		return "true or false"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	}
	return "an object"
}

// idPattern is a client id: a tracker's UUID, ULID or random string.
var idPattern = regexp.MustCompile(`^[\x21-\x7e]{1,64}$`)

// checker collects the first problem of one event.
type checker struct {
	at  string
	err error
}

func (c *checker) fail(field, format string, args ...any) {
	if c.err == nil {
		f := join(c.at, field)
		c.err = apperr.InvalidField(f, format, args...)
	}
}

// text checks an optional free text of at most max characters: no control
// characters (a NUL is what jsonbody makes of bytes that are not UTF-8).
func (c *checker) text(field string, v *string, max int) *string {
	if v == nil {
		return nil
	}
	if n := len([]rune(*v)); n > max {
		c.fail(field, "is %d characters long; at most %d are allowed", n, max)
		return nil
	}
	if strings.IndexFunc(*v, unicode.IsControl) >= 0 {
		c.fail(field, "holds a control character or bytes that are not UTF-8 text")
		return nil
	}
	return v
}

func (c *checker) number(field string, v *int64, lo, hi int64) *int64 {
	if v != nil && (*v < lo || *v > hi) {
		c.fail(field, "must be between %d and %d, not %d", lo, hi, *v)
	}
	return v
}

func (c *checker) required(field string, ok bool, name string) {
	if !ok {
		c.fail(field, "is required on a %s event", name)
	}
}

// object checks a map of known keys and encodes it as JSON text.
func (c *checker) object(field string, m map[string]string, known []string, max int, prefix string) *string {
	if len(m) == 0 {
		return nil
	}
	stored := make(map[string]string, len(m))
	for k, v := range m {
		if !contains(known, k) {
			c.fail(field+"."+k, "is not one of %s", strings.Join(known, ", "))
			return nil
		}
		c.text(field+"."+k, &v, max)
		stored[prefix+k] = v
	}
	buf, _ := json.Marshal(stored) // map keys come out sorted
	s := string(buf)
	return &s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var (
	currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)
	languagePattern = regexp.MustCompile(`^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`)
	zones           sync.Map // time zone name -> bool (known)
)

// knownZone tells whether name is an IANA time zone, remembering the
// answer: loading a zone reads the embedded database.
func knownZone(name string) bool {
	if v, ok := zones.Load(name); ok {
		return v.(bool)
	}
	_, err := time.LoadLocation(name)
	ok := err == nil && name != "Local" && name != ""
	zones.Store(name, ok)
	return ok
}

// stage checks e, the event at (events[3] of a batch, line 17 of a file),
// and turns it into its staged form. It reports the first problem,
// naming its field.
func (e *EventInput) stage(at string, ord int, w window) (models.StagedEvent, error) {
	c := &checker{at: at}
	s := models.StagedEvent{Ord: ord, ClientEventID: e.ID, AnonID: e.VisitorID, ClientSessionID: e.SessionID, Name: e.Name}
	if !idPattern.MatchString(e.ID) {
		c.fail("id", "must be 1 to 64 visible ASCII characters (the tracker's id of the event)")
	}
	if !contains(eventNames, e.Name) {
		c.fail("name", "must be one of %s", strings.Join(eventNames, ", "))
	}
	if !idPattern.MatchString(e.VisitorID) {
		c.fail("visitor_id", "must be 1 to 64 visible ASCII characters (the id the browser keeps for its visitor)")
	}
	if e.SessionID != "" && !idPattern.MatchString(e.SessionID) {
		c.fail("session_id", "must be at most 64 visible ASCII characters")
	}
	if e.Time == "" {
		c.fail("time", "is required: when the event happened, in RFC 3339 (2026-11-24T10:15:00Z)")
	} else if t, err := time.Parse(time.RFC3339Nano, e.Time); err != nil {
		c.fail("time", "must be an RFC 3339 time such as 2026-11-24T10:15:00Z")
	} else if t.Before(w.from) || t.After(w.to) {
		c.fail("time", "must be between %s and %s", w.from.UTC().Format(time.RFC3339), w.to.UTC().Format(time.RFC3339))
	} else {
		s.OccurredAt = t.UTC()
	}
	if s.Path = c.text("path", e.Path, 2048); s.Path != nil && !strings.HasPrefix(*s.Path, "/") {
		c.fail("path", "must start with / (the page's path and query, without the host)")
	}
	if s.Referrer = c.text("referrer", e.Referrer, 2048); s.Referrer != nil && *s.Referrer != "" {
		if u, err := url.Parse(*s.Referrer); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			c.fail("referrer", "must be an http or https URL")
		}
	}
	// Stored as the landing URL names them (utm_source, ...), the one
	// spelling sessions, checkouts and orders' attribution share.
	s.UTM = c.object("utm", e.UTM, utmKeys, 256, "utm_")
	s.ClickIDs = c.object("click_ids", e.ClickIDs, clickIDKeys, 512, "")
	s.DwellMS = c.number("dwell_ms", e.DwellMS, 0, 24*3600*1000)
	s.ScrollPct = c.number("scroll_pct", e.ScrollPct, 0, 100)
	s.ProductID = c.number("product_id", e.ProductID, 1, 1<<53)
	s.VariantID = c.number("variant_id", e.VariantID, 1, 1<<53)
	s.ProductTitle = c.text("product_title", e.ProductTitle, 512)
	s.SearchQuery = c.text("query", e.Query, 512)
	s.ResultCount = c.number("result_count", e.ResultCount, 0, 1_000_000)
	if e.Element != nil {
		s.ElSelector = c.text("element.selector", e.Element.Selector, 512)
		s.ElText = c.text("element.text", e.Element.Text, 256)
	}
	s.Quantity = c.number("quantity", e.Quantity, 1, 10_000)
	s.ValueCents = c.number("value_cents", e.ValueCents, 0, 1_000_000_000_000)
	if s.Currency = c.text("currency", e.Currency, 3); s.Currency != nil && !currencyPattern.MatchString(*s.Currency) {
		c.fail("currency", "must be an ISO 4217 code in capitals, such as EUR")
	}
	s.Step = c.text("step", e.Step, 64)
	s.CartToken = c.text("cart_token", e.CartToken, 128)
	s.CheckoutToken = c.text("checkout_token", e.CheckoutToken, 128)
	if d := e.Device; d != nil {
		s.ScreenW = c.number("device.screen_w", d.ScreenW, 1, 20_000)
		s.ScreenH = c.number("device.screen_h", d.ScreenH, 1, 20_000)
		s.ViewportW = c.number("device.viewport_w", d.ViewportW, 1, 20_000)
		s.ViewportH = c.number("device.viewport_h", d.ViewportH, 1, 20_000)
		if s.Language = c.text("device.language", d.Language, 35); s.Language != nil && !languagePattern.MatchString(*s.Language) {
			c.fail("device.language", "must be a BCP 47 language tag such as en-GB")
		}
		if s.Timezone = c.text("device.timezone", d.Timezone, 64); s.Timezone != nil && !knownZone(*s.Timezone) {
			c.fail("device.timezone", "must be an IANA time zone such as Europe/Berlin")
		}
	}
	e.stageExperiment(c, &s)
	// What each kind of event must say.
	switch e.Name {
	case EventPageView:
		c.required("path", s.Path != nil, e.Name)
	case EventProductView:
		c.required("product_id", s.ProductID != nil, e.Name)
	case EventSearch:
		c.required("query", s.SearchQuery != nil, e.Name)
	case EventClick:
		c.required("element", s.ElSelector != nil || s.ElText != nil, e.Name)
	case EventAddToCart, EventRemoveFromCart:
		c.required("product_id", s.ProductID != nil || s.VariantID != nil, e.Name+" (or variant_id)")
		if s.Quantity == nil {
			one := int64(1)
			s.Quantity = &one
		}
	case EventCheckoutStep:
		c.required("step", s.Step != nil && *s.Step != "", e.Name)
	case EventExperimentView:
		c.required("experiment", s.Experiment != "", e.Name)
	}
	return s, c.err
}
