package ordersheet

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// TimeLayout is how times are written: what Shopify's export writes, which
// every spreadsheet program reads as a date and time, with the offset so
// that the moment is never ambiguous.
const TimeLayout = "2006-01-02 15:04:05 -0700"

// FormatTime writes t in loc in TimeLayout; nil or zero is empty.
func FormatTime(t *time.Time, loc *time.Location) string {
	if t == nil || t.IsZero() {
		return ""
	}
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format(TimeLayout)
}

// decimals are the ISO 4217 minor units of the currencies that do not have
// two: amounts are stored in minor units, so 1200 yen are 1200, not 12.00.
var decimals = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
	"RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
	"CLF": 4, "UYW": 4,
}

// Decimals is how many decimals the currency's amounts have: 2 unless ISO
// 4217 says otherwise.
func Decimals(currency string) int {
	if d, ok := decimals[strings.ToUpper(strings.TrimSpace(currency))]; ok {
		return d
	}
	return 2
}

// FormatMoney writes an amount in minor units as the plain number a
// spreadsheet reads, in major units with the currency's decimals: 1250 USD
// is "12.50", 1200 JPY is "1200", 1250 KWD is "1.250". No currency sign and
// no thousands separator, so the cell stays a number.
func FormatMoney(minor int64, currency string) string {
	d := Decimals(currency)
	sign := ""
	u := uint64(minor)
	if minor < 0 {
		sign, u = "-", uint64(-(minor+1))+1 // also right for math.MinInt64
	}
	s := strconv.FormatUint(u, 10)
	if d == 0 {
		return sign + s
	}
	if len(s) <= d {
		s = strings.Repeat("0", d-len(s)+1) + s
	}
	return sign + s[:len(s)-d] + "." + s[len(s)-d:]
}

// AddressFrom reads an address as orders store it: a JSON object with the
// keys first_name, last_name, name, company, address1, address2, city,
// province (or province_code), zip, country (or country_code) and phone.
// Missing keys, null and a value that is not an object give empty cells;
// numbers (a zip sent as 10115) are written as typed. Like Shopify's export,
// the name is "name" or else first and last name, and province and country
// are their codes when the address has them.
func AddressFrom(v any) Address {
	m := object(v)
	a := Address{
		Name:     str(m, "name"),
		Address1: str(m, "address1"),
		Address2: str(m, "address2"),
		Company:  str(m, "company"),
		City:     str(m, "city"),
		Zip:      str(m, "zip"),
		Province: firstOf(str(m, "province_code"), str(m, "province")),
		Country:  firstOf(str(m, "country_code"), str(m, "country")),
		Phone:    str(m, "phone"),
	}
	if a.Name == "" {
		a.Name = strings.TrimSpace(str(m, "first_name") + " " + str(m, "last_name"))
	}
	return a
}

// ShippingMethodFrom reads the name of the shipping method from an order's
// shipping line ({title, code, price_cents, carrier}): its title, else its
// code.
func ShippingMethodFrom(v any) string {
	m := object(v)
	return firstOf(str(m, "title"), str(m, "code"))
}

// object returns v as a JSON object, or nil.
func object(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return m
	case json.RawMessage:
		return decodeObject(x)
	case []byte:
		return decodeObject(x)
	case string:
		return decodeObject([]byte(x))
	}
	return nil
}

func decodeObject(b []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// str is the text of m[key]: strings trimmed, numbers and booleans as
// written, anything else (missing, null, an object) empty.
func str(m map[string]any, key string) string {
	switch x := m[key].(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
