package resolvers

import (
	"regexp"
	"strings"
	"time"

	"golang.org/x/text/currency"
	"golang.org/x/text/language"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Weight units a store can use.
var weightUnits = []string{"g", "kg", "lb", "oz"}

var phoneRE = regexp.MustCompile(`^\+?[0-9 ()./-]{0,32}$`)

// applyStoreUpdate checks input and copies it onto s, returning the columns
// it changed.
func applyStoreUpdate(s *models.Store, in graph.StoreUpdateInput) ([]string, error) {
	var cols []string
	set := func(col string, dst *string, v *string, check func(string) (string, error)) error {
		if v == nil {
			return nil
		}
		clean, err := check(*v)
		if err != nil {
			return err
		}
		*dst = clean
		cols = append(cols, col)
		return nil
	}
	err := firstErr(
		set("name", &s.Name, in.Name, func(v string) (string, error) { return text("name", v, 255, true) }),
		set("contact_email", &s.ContactEmail, in.ContactEmail, func(v string) (string, error) { return email("contact_email", v, false) }),
		set("contact_phone", &s.ContactPhone, in.ContactPhone, func(v string) (string, error) {
			return matches("contact_phone", strings.TrimSpace(v), phoneRE, "a phone number of digits, spaces and + ( ) - . /, at most 32 characters")
		}),
		set("currency", &s.Currency, in.Currency, checkCurrency),
		set("locale", &s.Locale, in.Locale, checkLocale),
		set("timezone", &s.Timezone, in.Timezone, checkTimezone),
		set("weight_unit", &s.WeightUnit, in.WeightUnit, func(v string) (string, error) { return oneOf("weight_unit", v, weightUnits...) }),
		set("order_number_prefix", &s.OrderNumberPrefix, in.OrderNumberPrefix, func(v string) (string, error) { return text("order_number_prefix", v, 16, false) }),
		set("order_number_suffix", &s.OrderNumberSuffix, in.OrderNumberSuffix, func(v string) (string, error) { return text("order_number_suffix", v, 16, false) }),
	)
	if err != nil {
		return nil, err
	}
	if in.Address != nil {
		addr, ok := in.Address.(map[string]any)
		if !ok {
			return nil, apperr.Invalidf("address must be an object, such as {\"address1\": \"1 Main St\", \"city\": \"Springfield\", \"country\": \"US\"}")
		}
		if err := jsonSize("address", addr, 4096); err != nil {
			return nil, err
		}
		s.Address = addr
		cols = append(cols, "address")
	}
	return cols, nil
}

func checkCurrency(v string) (string, error) {
	v = strings.ToUpper(strings.TrimSpace(v))
	if len(v) != 3 {
		return "", apperr.Invalidf("currency must be a three-letter ISO 4217 code such as USD or EUR")
	}
	if _, err := currency.ParseISO(v); err != nil {
		return "", apperr.Invalidf("currency %q is not an ISO 4217 code", v)
	}
	return v, nil
}

func checkLocale(v string) (string, error) {
	v = strings.TrimSpace(v)
	tag, err := language.Parse(v)
	if err != nil || v == "" {
		return "", apperr.Invalidf("locale must be a language tag such as en or en-US")
	}
	return tag.String(), nil
}

func checkTimezone(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" || strings.EqualFold(v, "local") {
		return "", apperr.Invalidf("timezone must be an IANA time zone such as Europe/Berlin")
	}
	if _, err := time.LoadLocation(v); err != nil {
		return "", apperr.Invalidf("timezone %q is not an IANA time zone (such as Europe/Berlin)", v)
	}
	return v, nil
}
