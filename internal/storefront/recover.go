package storefront

import (
	"html/template"
	"net/http"

	"github.com/go-chi/chi/v5"

	"storeadmin/internal/base/failure"
)

// recover follows a recovery email's link: it records the click and sends
// the shopper (302) to their cart or checkout on the store's storefront.
func (s *service) recover(w http.ResponseWriter, r *http.Request) {
	to, err := s.Recovery.Follow(r.Context(), s.DB, chi.URLParam(r, "token"), r.URL.Query().Get("sig"), s.Now())
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	// The storefront must not learn the link (its signature) from Referer.
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, to, http.StatusFound)
}

// confirmOptOut answers an opt-out link opened in a browser with a page
// whose button opts out (a POST): mail scanners that open every link of a
// message must not opt the shopper out.
func (s *service) confirmOptOut(w http.ResponseWriter, r *http.Request) {
	if _, err := s.Recovery.CheckOptOutLink(chi.URLParam(r, "token"), r.URL.Query().Get("sig")); err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	page(w, http.StatusOK, optOutPage, map[string]string{"Action": r.URL.RequestURI()})
}

// optOut opts the shopper out: the page's button, and mail clients' one-click
// unsubscribe (RFC 8058: POST with List-Unsubscribe=One-Click).
func (s *service) optOut(w http.ResponseWriter, r *http.Request) {
	store, err := s.Recovery.OptOut(r.Context(), s.DB, chi.URLParam(r, "token"), r.URL.Query().Get("sig"))
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	page(w, http.StatusOK, optedOutPage, map[string]string{"Store": store})
}

// page writes a small HTML page for a person who followed a link.
func page(w http.ResponseWriter, status int, t *template.Template, data any) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	w.WriteHeader(status)
	t.Execute(w, data)
}

var optOutPage = template.Must(template.New("opt-out").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>No more reminders</title></head>
<body style="font-family: sans-serif; max-width: 32em; margin: 4em auto">
<p>Stop the reminders about the cart you left?</p>
<form method="post" action="{{.Action}}"><button type="submit">Yes, send me no more reminders</button></form>
</body></html>
`))

var optedOutPage = template.Must(template.New("opted-out").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>No more reminders</title></head>
<body style="font-family: sans-serif; max-width: 32em; margin: 4em auto">
<p>Done: {{.Store}} will send you no more reminders about the cart you left.</p>
</body></html>
`))
