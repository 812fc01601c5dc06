package recovery

import (
	"context"
	htmltemplate "html/template"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/sheets/ordersheet"
	"storeadmin/internal/mail"
	"storeadmin/models"
)

// view is what a reminder's templates read.
type view struct {
	Store       string
	Greeting    string
	Intro       string
	Lines       []lineView
	Total       string
	TotalLabel  string
	RecoverURL  string
	OptOutURL   string
	Discount    string // the code, empty without one
	DiscountOff string // "10% off", "5.00 USD off"
	ValidUntil  string
}

type lineView struct {
	Quantity int64
	Title    string
	Price    string
}

// money writes minor units in major ones with the currency's code:
// "12.50 USD".
func money(minor int64, currency string) string {
	return ordersheet.FormatMoney(minor, currency) + " " + currency
}

// render makes the email of m about t: subject and body from the cart or
// checkout, its recovery and opt-out links, its discount code.
func (s *Service) render(ctx context.Context, db bun.IDB, t *models.RecoveryTarget, m *models.RecoveryMessage, now time.Time) (mail.Message, error) {
	st, err := models.GetStore(ctx, db, t.StoreID)
	if err != nil {
		return mail.Message{}, err
	}
	es, err := models.GetEmailSettings(ctx, db, t.StoreID)
	if err != nil {
		return mail.Message{}, err
	}
	v := view{
		Store:      st.Name,
		Greeting:   "Hello",
		RecoverURL: s.link(RecoverPath, purposeRecover, m.ID, now),
		OptOutURL:  s.link(OptOutPath, purposeOptOut, m.ID, now),
		Total:      money(t.TotalCents, t.Currency),
		TotalLabel: "Subtotal",
	}
	if t.FirstName != "" {
		v.Greeting += " " + t.FirstName
	}
	subject := "You left something in your cart at " + st.Name
	v.Intro = "You left these in your cart. They are waiting for you:"
	if t.Kind == models.RecoveryCheckout {
		subject = "Complete your purchase at " + st.Name
		v.Intro = "Your checkout is not finished yet. Here is what you chose:"
		v.TotalLabel = "Total"
	}
	for _, l := range t.Lines {
		title := l.Title
		if l.VariantTitle != "" {
			title += " (" + l.VariantTitle + ")"
		}
		v.Lines = append(v.Lines, lineView{Quantity: l.Quantity, Title: title, Price: money(l.PriceCents*l.Quantity, t.Currency)})
	}
	if m.DiscountCode != "" {
		d, err := models.DiscountByCode(ctx, db, t.StoreID, m.DiscountCode)
		if err != nil {
			return mail.Message{}, err
		}
		v.Discount = d.Code
		v.DiscountOff = strconv.FormatInt(d.Value, 10) + "% off"
		if d.ValueType == models.DiscountFixedAmount {
			v.DiscountOff = money(d.Value, t.Currency) + " off"
		}
		if d.EndsAt != nil {
			v.ValidUntil = d.EndsAt.UTC().Format("2 January 2006, 15:04 UTC")
		}
		subject = v.DiscountOff + " your order at " + st.Name + ": your cart is waiting"
	}
	var text, html strings.Builder
	if err := textTemplate.Execute(&text, v); err != nil {
		return mail.Message{}, err
	}
	if err := htmlTemplate.Execute(&html, v); err != nil {
		return mail.Message{}, err
	}
	return mail.Message{
		StoreID: t.StoreID, FromName: es.FromName, ReplyTo: es.ReplyTo, To: t.Email, Subject: subject,
		Text: text.String(), HTML: html.String(), Unsubscribe: v.OptOutURL, Date: now,
	}, nil
}

var textTemplate = texttemplate.Must(texttemplate.New("text").Parse(`{{.Greeting}},

{{.Intro}}
{{range .Lines}}
  {{.Quantity}} x {{.Title}}: {{.Price}}{{end}}

{{.TotalLabel}}: {{.Total}}
{{if .Discount}}
Use the code {{.Discount}} for {{.DiscountOff}}{{if .ValidUntil}}, valid until {{.ValidUntil}}{{end}}.
{{end}}
Return to your cart: {{.RecoverURL}}

{{.Store}}

You receive this because you left your email address at {{.Store}}'s checkout.
No more reminders: {{.OptOutURL}}
`))

var htmlTemplate = htmltemplate.Must(htmltemplate.New("html").Parse(`<!DOCTYPE html>
<html><body style="font-family: sans-serif; color: #222">
<p>{{.Greeting}},</p>
<p>{{.Intro}}</p>
<table cellpadding="4">
{{range .Lines}}<tr><td>{{.Quantity}} &times;</td><td>{{.Title}}</td><td align="right">{{.Price}}</td></tr>
{{end}}<tr><td></td><td><strong>{{.TotalLabel}}</strong></td><td align="right"><strong>{{.Total}}</strong></td></tr>
</table>
{{if .Discount}}<p>Use the code <strong>{{.Discount}}</strong> for {{.DiscountOff}}{{if .ValidUntil}}, valid until {{.ValidUntil}}{{end}}.</p>
{{end}}<p><a href="{{.RecoverURL}}">Return to your cart</a></p>
<p>{{.Store}}</p>
<p style="font-size: small; color: #777">You receive this because you left your email address at {{.Store}}'s checkout.
<a href="{{.OptOutURL}}">No more reminders</a></p>
</body></html>
`))
