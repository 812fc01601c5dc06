package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// formKind is a storefront form the demo store has, and what shoppers send
// through it.
type formKind struct {
	typ  string
	page string // the storefront path the form is on
	// weight is how many of every 100 submissions come through it.
	weight   int
	named    bool // the form asks a name
	messages []string
}

var formKinds = []formKind{
	{typ: "contact", page: models.PagePath("contact"), weight: 45, named: true, messages: []string{
		"Hi! My order hasn't shipped yet and it's been five days. Could you check on it?",
		"Do you ship to Canada? I couldn't find it on the shipping page.",
		"The zipper on my jacket broke after two weeks. What are my options?",
		"Can I change the size on my order before it ships? I ordered an M and need an L.",
		"Is the trail pack waterproof or only water-resistant?",
		"I received the wrong colour. I ordered forest green and got navy.",
		"Will the merino base layer be restocked in XS?",
		"Do you offer gift wrapping? It's for my brother's birthday.",
		"How do I return an item bought with a gift card?",
		"Just wanted to say the tent held up perfectly in a storm last weekend. Thank you!",
	}},
	{typ: "newsletter", page: "/", weight: 38},
	{typ: "wholesale", page: models.PagePath("wholesale"), weight: 10, named: true, messages: []string{
		"We run an outdoor shop in Bend, OR and would like to carry your packs. Do you have a wholesale price list?",
		"Our guiding company needs 40 rain shells for staff each season. Can we set up a trade account?",
		"I manage purchasing for a chain of three stores in Colorado. What are your minimum order quantities?",
		"We'd like to stock your camp cookware in our online store. What margins do retailers get?",
	}},
	{typ: "press", page: models.PagePath("press"), weight: 4, named: true, messages: []string{
		"I'm writing a gift guide for a hiking magazine and would love to include your insulated bottle. Could you send a sample?",
		"We're producing a podcast episode on sustainable outdoor brands. Would your founder be available for an interview?",
	}},
	{typ: "back-in-stock", page: models.ProductPath("rain-shell"), weight: 3},
}

var (
	formFirstNames = []string{"Ana", "Ben", "Chloe", "Dev", "Elena", "Finn", "Grace", "Hiro", "Isla", "Jonah", "Kira", "Liam", "Maya", "Noah", "Olive", "Priya", "Quinn", "Rosa", "Sam", "Tara", "Umar", "Vera", "Wes", "Yuki", "Zoe"}
	formLastNames  = []string{"Alvarez", "Brooks", "Chen", "Diaz", "Evans", "Fischer", "Garcia", "Hughes", "Ito", "Jensen", "Kowalski", "Lopez", "Murphy", "Nguyen", "Okafor", "Patel", "Reyes", "Smith", "Tanaka", "Walsh"}
	formDomains    = []string{"example.com", "example.org", "example.net", "mail.example", "trailmail.example"}
)

// formsAndEmail seeds the form submissions of the last six months (240,
// of every kind; the older ones read but a few, most of the last week's
// not) and
// the store's email settings, each unless the store already has some.
func formsAndEmail(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	if err := seedFormSubmissions(ctx, tx, storeID, now); err != nil {
		return err
	}
	has, err := models.HasEmailSettings(ctx, tx, storeID)
	if err != nil || has {
		return err
	}
	s, err := models.GetStore(ctx, tx, storeID)
	if err != nil {
		return err
	}
	fromName, replyTo := s.Name, "support@"+s.Handle+".example"
	_, err = models.UpdateEmailSettings(ctx, tx, storeID, &fromName, &replyTo)
	return err
}

func seedFormSubmissions(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	n, err := models.CountFormSubmissions(ctx, tx, storeID, models.FormSubmissionFilter{})
	if err != nil || n > 0 {
		return err
	}
	s, err := models.GetStore(ctx, tx, storeID)
	if err != nil {
		return err
	}
	site := "https://www." + s.Handle + ".example"
	rng := rand.New(rand.NewPCG(uint64(storeID), 44))
	const count, days = 240, 182
	for i := range count {
		// Spread over the half year, denser recently (a growing store).
		u := rng.Float64()
		age := time.Duration(float64(days*24*time.Hour)*u*u) + time.Duration(i)*time.Second
		at := now.Add(-age).Truncate(time.Second)
		kind := pickFormKind(rng)
		first, last := formFirstNames[rng.IntN(len(formFirstNames))], formLastNames[rng.IntN(len(formLastNames))]
		sub := &models.FormSubmission{
			StoreID: storeID, Type: kind.typ, CreatedAt: at, SourceURL: site + kind.page,
			Email: fmt.Sprintf("%s.%s%d@%s", strings.ToLower(first), strings.ToLower(last), rng.IntN(90)+10, formDomains[rng.IntN(len(formDomains))]),
		}
		if kind.named {
			sub.Name = first + " " + last
		}
		if len(kind.messages) > 0 {
			sub.Message = kind.messages[rng.IntN(len(kind.messages))]
		}
		// Read within two days, except most of the last week's and a few
		// forgotten ones.
		if recent := age < 7*24*time.Hour; (recent && rng.IntN(4) == 0) || (!recent && rng.IntN(25) != 0) {
			read := at.Add(time.Duration(rng.IntN(48*60)+5) * time.Minute)
			if read.Before(now) {
				sub.ReadAt = &read
			}
		}
		if err := models.CreateFormSubmission(ctx, tx, sub); err != nil {
			return err
		}
	}
	return nil
}

// pickFormKind picks a form by the kinds' weights.
func pickFormKind(rng *rand.Rand) formKind {
	n := rng.IntN(100)
	for _, k := range formKinds {
		if n < k.weight {
			return k
		}
		n -= k.weight
	}
	return formKinds[0]
}
