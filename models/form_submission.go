package models

import (
	"context"
	"database/sql"
	"net/mail"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Bounds of what a form submission holds, the storefront's form fields.
const (
	maxFormName      = 255
	maxFormEmail     = 254 // RFC 5321's longest path
	maxFormMessage   = 10_000
	maxFormSourceURL = 2048
)

// MaxFormSubmissionExport is how many submissions one export may hold: an
// export is made in memory, and beyond the bound it is refused (a 400
// asking to narrow the filter) rather than cut short.
const MaxFormSubmissionExport = 50_000

// formTypeRE is what a form's type may be (the migration's CHECK): a
// handle, since themes add forms of their own besides contact, newsletter
// and wholesale.
var formTypeRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// FormSubmission is what a shopper sent through one of the storefront's
// forms.
type FormSubmission struct {
	bun.BaseModel `bun:"table:form_submissions,alias:fs"`

	ID        int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64      `bun:"store_id" json:"-"`
	Type      string     `bun:"type" json:"type"`
	Name      string     `bun:"name" json:"name"`
	Email     string     `bun:"email" json:"email"`
	Message   string     `bun:"message" json:"message"`
	SourceURL string     `bun:"source_url" json:"source_url"`
	ReadAt    *time.Time `bun:"read_at" json:"read_at"`
	CreatedAt time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
}

// checkFormType checks a form type, as a filter or a submission names it.
func checkFormType(field, v string) error {
	if !formTypeRE.MatchString(v) {
		return apperr.Invalidf("%s must be a form type of lower-case letters, digits, - and _ (at most 40), such as contact or newsletter, not %q", field, v)
	}
	return nil
}

// CreateFormSubmission stores what a shopper sent: the one way a
// submission is made (the storefront's forms, the demo seed). Its text is
// trimmed and bounded, and the email, when given, must be an address.
func CreateFormSubmission(ctx context.Context, db bun.IDB, f *FormSubmission) error {
	if err := f.clean(); err != nil {
		return err
	}
	_, err := db.NewInsert().Model(f).Returning("id, created_at").Exec(ctx)
	return classify(err, "a form submission")
}

// clean trims f's text and checks it.
func (f *FormSubmission) clean() error {
	f.Type = strings.TrimSpace(f.Type)
	f.Name, f.Email = strings.TrimSpace(f.Name), strings.TrimSpace(f.Email)
	f.Message, f.SourceURL = strings.TrimSpace(f.Message), strings.TrimSpace(f.SourceURL)
	if err := checkFormType("type", f.Type); err != nil {
		return err
	}
	for _, c := range []struct {
		field, v string
		max      int
	}{{"name", f.Name, maxFormName}, {"email", f.Email, maxFormEmail}, {"message", f.Message, maxFormMessage}, {"source_url", f.SourceURL, maxFormSourceURL}} {
		if utf8.RuneCountInString(c.v) > c.max {
			return apperr.Invalidf("%s must be at most %d characters", c.field, c.max)
		}
	}
	if strings.ContainsFunc(f.Name+f.Email+f.SourceURL, unicode.IsControl) {
		return apperr.Invalidf("name, email and source_url must be one line of text")
	}
	if f.Email != "" {
		if a, err := mail.ParseAddress(f.Email); err != nil || a.Address != f.Email {
			return apperr.Invalidf("email must be an email address such as ana@example.com")
		}
	}
	return nil
}

// FormSubmissionFilter narrows a list of form submissions. CreatedFrom is
// inclusive, CreatedTo exclusive.
type FormSubmissionFilter struct {
	Type        *string    `json:"type"`
	Read        *bool      `json:"read"`
	CreatedFrom *time.Time `json:"created_from"`
	CreatedTo   *time.Time `json:"created_to"`
	Q           *string    `json:"q"`
}

// Check refuses a filter the list cannot run.
func (f FormSubmissionFilter) Check() error {
	if f.Type != nil {
		if err := checkFormType("type", *f.Type); err != nil {
			return err
		}
	}
	if f.CreatedFrom != nil && f.CreatedTo != nil && !f.CreatedFrom.Before(*f.CreatedTo) {
		return apperr.Invalidf("created_from must be before created_to")
	}
	return nil
}

func (f FormSubmissionFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	q = f.applyButTypeAndRead(q)
	if f.Type != nil {
		q = q.Where("fs.type = ?", *f.Type)
	}
	if f.Read != nil {
		if *f.Read {
			q = q.Where("fs.read_at IS NOT NULL")
		} else {
			q = q.Where("fs.read_at IS NULL")
		}
	}
	return q
}

// applyButTypeAndRead applies the conditions the counts keep: the date
// range and the search.
func (f FormSubmissionFilter) applyButTypeAndRead(q *bun.SelectQuery) *bun.SelectQuery {
	if f.CreatedFrom != nil {
		q = q.Where("fs.created_at >= ?", *f.CreatedFrom)
	}
	if f.CreatedTo != nil {
		q = q.Where("fs.created_at < ?", *f.CreatedTo)
	}
	if f.Q != nil && strings.TrimSpace(*f.Q) != "" {
		// The expression of form_submissions_search_idx.
		q = q.Where("lower(fs.name || ' ' || fs.email || ' ' || fs.message) LIKE ?", containsPattern(*f.Q))
	}
	return q
}

// formSubmissionsNewestFirst is the list's one order.
var formSubmissionsNewestFirst = Sort[FormSubmission]{Desc: true, Keys: []SortKey[FormSubmission]{
	{SQL: "fs.created_at", Of: func(f *FormSubmission) any { return f.CreatedAt }},
	{SQL: "fs.id", Of: func(f *FormSubmission) any { return f.ID }},
}}

// PageFormSubmissions lists a store's form submissions, newest first, with
// the cursor of the next page.
func PageFormSubmissions(ctx context.Context, db bun.IDB, storeID int64, f FormSubmissionFilter, p Paging) (Page[FormSubmission], error) {
	scope, err := PageScope("form_submissions", storeID, f)
	if err != nil {
		return Page[FormSubmission]{}, err
	}
	var out []FormSubmission
	q := db.NewSelect().Model(&out).Where("fs.store_id = ?", storeID).Apply(f.apply)
	return ReadPage(ctx, db, q, &out, formSubmissionsNewestFirst, scope, p)
}

// CountFormSubmissions counts what PageFormSubmissions lists without
// paging.
func CountFormSubmissions(ctx context.Context, db bun.IDB, storeID int64, f FormSubmissionFilter) (int64, error) {
	return db.NewSelect().Model((*FormSubmission)(nil)).Where("fs.store_id = ?", storeID).Apply(f.apply).Count(ctx)
}

// ExportFormSubmissions reads every submission under f, newest first, for
// an export: at most MaxFormSubmissionExport (counted first; more is a 400
// asking to narrow the filter), in one repeatable-read transaction so the
// count and the rows agree.
func ExportFormSubmissions(ctx context.Context, db bun.IDB, storeID int64, f FormSubmissionFilter) ([]FormSubmission, error) {
	var out []FormSubmission
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	err := db.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
		n, err := CountFormSubmissions(ctx, tx, storeID, f)
		if err != nil {
			return err
		}
		if n > MaxFormSubmissionExport {
			return apperr.Invalidf("%d form submissions match, more than one export holds (%d); narrow the filter (type, created_from, created_to)", n, MaxFormSubmissionExport)
		}
		return tx.NewSelect().Model(&out).Where("fs.store_id = ?", storeID).Apply(f.apply).
			OrderExpr("fs.created_at DESC, fs.id DESC").Scan(ctx)
	})
	return out, err
}

// FormSubmissionCounts are the tabs of a submissions inbox: how many there
// are and how many are unread, in all and per type, under a filter's date
// range and search (its type and read are not applied).
type FormSubmissionCounts struct {
	All    int64                     `json:"all"`
	Unread int64                     `json:"unread"`
	Types  []FormSubmissionTypeCount `json:"types"`
}

// FormSubmissionTypeCount is how many submissions of one type there are,
// and how many of them are unread.
type FormSubmissionTypeCount struct {
	Type   string `bun:"type" json:"type"`
	All    int64  `bun:"all" json:"all"`
	Unread int64  `bun:"unread" json:"unread"`
}

// CountFormSubmissionsByType counts the store's submissions per type, in
// one statement, under every condition of f but its type and read.
func CountFormSubmissionsByType(ctx context.Context, db bun.IDB, storeID int64, f FormSubmissionFilter) (FormSubmissionCounts, error) {
	c := FormSubmissionCounts{Types: []FormSubmissionTypeCount{}}
	err := db.NewSelect().Model((*FormSubmission)(nil)).
		ColumnExpr("fs.type AS type").
		ColumnExpr("count(*) AS all").
		ColumnExpr("count(*) FILTER (WHERE fs.read_at IS NULL) AS unread").
		Where("fs.store_id = ?", storeID).Apply(f.applyButTypeAndRead).
		GroupExpr("fs.type").OrderExpr("fs.type").Scan(ctx, &c.Types)
	for _, t := range c.Types {
		c.All += t.All
		c.Unread += t.Unread
	}
	return c, err
}

// SetFormSubmissionRead marks a submission of the store read at at, or
// unread when at is nil; a submission already read keeps its first read_at.
func SetFormSubmissionRead(ctx context.Context, db bun.IDB, storeID, id int64, at *time.Time) (*FormSubmission, error) {
	f := new(FormSubmission)
	q := db.NewUpdate().Model(f).Where("fs.store_id = ? AND fs.id = ?", storeID, id).Returning("*")
	if at == nil {
		q = q.Set("read_at = NULL")
	} else {
		q = q.Set("read_at = coalesce(fs.read_at, ?)", *at)
	}
	_, err := q.Exec(ctx)
	if err == nil && f.ID == 0 {
		return nil, classify(errNoRows, "the form submission")
	}
	return f, classify(err, "the form submission")
}

// DeleteFormSubmission deletes one submission of the store.
func DeleteFormSubmission(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*FormSubmission)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the form submission")
}
