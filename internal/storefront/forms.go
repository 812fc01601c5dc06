package storefront

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/models"
)

// POST /forms/{type}: a storefront form (contact, newsletter, or a theme's
// own) sent by a shopper, stored as a form submission of the admin's Form
// submissions area through models.CreateFormSubmission, the one way a
// submission is made (its bounds and checks).

// formBody is what a form sends.
type formBody struct {
	Name      string `json:"name"`
	Email     string `json:"email"`
	Message   string `json:"message"`
	SourceURL string `json:"source_url"`
	// Website is the honeypot: a field the form hides from people, which
	// only robots fill in. A submission that fills it is answered as
	// received and stored nowhere, so the robot learns nothing.
	Website string `json:"website"`
}

// submitForm is POST /forms/{type}, 201 {"received": true}. A newsletter
// signup needs an email; a contact form an email and a message; other
// forms at least one field. The page's address is source_url, else the
// Referer.
func (s *service) submitForm(w http.ResponseWriter, r *http.Request) {
	var in formBody
	if err := readBody(r, &in); err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	if strings.TrimSpace(in.Website) != "" {
		answer(w, r, http.StatusCreated, map[string]any{"received": true})
		return
	}
	f := &models.FormSubmission{StoreID: storeOf(r), Type: chi.URLParam(r, "type"), Name: in.Name, Email: in.Email,
		Message: in.Message, SourceURL: in.SourceURL, CreatedAt: s.Now().UTC()}
	if strings.TrimSpace(f.SourceURL) == "" {
		f.SourceURL = r.Referer()
	}
	email, message := strings.TrimSpace(in.Email) != "", strings.TrimSpace(in.Message) != ""
	var err error
	switch f.Type {
	case "newsletter":
		if !email {
			err = apperr.Invalidf("a newsletter signup needs an email")
		}
	case "contact":
		if !email || !message {
			err = apperr.Invalidf("a contact form needs an email and a message")
		}
	default:
		if !email && !message && strings.TrimSpace(in.Name) == "" {
			err = apperr.Invalidf("the form sent nothing: name, email and message are empty")
		}
	}
	if err == nil {
		err = models.CreateFormSubmission(r.Context(), s.DB, f)
	}
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, http.StatusCreated, map[string]any{"received": true})
}
