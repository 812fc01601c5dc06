package storefront

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"storeadmin/internal/base/failure"
	"storeadmin/models"
)

// themePreview answers a theme's draft to the holder of its preview token
// (POST /store/themes/{id}/preview-token): GET /theme-preview/{token}. No
// key: the signed token is the credential, and it opens that one theme of
// that one store, read as it is now (the draft being edited), until the
// token expires.
func (s *service) themePreview(w http.ResponseWriter, r *http.Request) {
	grant, err := s.Previews.CheckTheme(chi.URLParam(r, "token"), s.Now())
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	t, err := models.GetTheme(r.Context(), s.DB, grant.StoreID, grant.ThemeID)
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	// Any page may fetch it (the store's storefront, a local renderer):
	// the token, not the page's origin, is what lets it in, and no cookie
	// is involved. The token must not leak to other sites through Referer.
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Referrer-Policy", "no-referrer")
	answer(w, r, http.StatusOK, map[string]any{"preview": themePreviewView{
		ThemeID:         t.ID,
		Name:            t.Name,
		BaseKey:         t.BaseKey,
		TemplateVersion: t.TemplateVersion,
		DraftSettings:   t.DraftSettings,
		Live:            t.Live,
		UpdatedAt:       t.UpdatedAt,
		ExpiresAt:       grant.Expires,
	}})
}

// themePreviewView is what a preview answers: the theme's draft and what a
// renderer needs to draw it (the template and the release whose schema the
// draft follows).
type themePreviewView struct {
	ThemeID         int64     `json:"theme_id"`
	Name            string    `json:"name"`
	BaseKey         string    `json:"base_key"`
	TemplateVersion int64     `json:"template_version"`
	DraftSettings   any       `json:"draft_settings"`
	Live            bool      `json:"live"`
	UpdatedAt       time.Time `json:"updated_at"`
	ExpiresAt       time.Time `json:"expires_at"`
}
