package models

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"storeadmin/internal/base/apperr"
)

// CollectionRule is one condition of a smart collection, in the hosted
// platforms' shape: column, relation, condition.
type CollectionRule struct {
	Column    string `json:"column"`
	Relation  string `json:"relation"`
	Condition string `json:"condition"`
}

// ruleColumn says how a rule column reads a product: as text or a number,
// on the product row or on any of its variants.
type ruleColumn struct {
	expr    string // SQL over product (alias product) or variant (alias v)
	variant bool
	numeric bool
	tag     bool
}

var ruleColumns = map[string]ruleColumn{
	"title":                    {expr: "product.title"},
	"type":                     {expr: "product.product_type"},
	"vendor":                   {expr: "product.vendor"},
	"tag":                      {tag: true},
	"variant_title":            {expr: "v.title", variant: true},
	"variant_price":            {expr: "v.price_cents", variant: true, numeric: true},
	"variant_compare_at_price": {expr: "v.compare_at_price_cents", variant: true, numeric: true},
	"variant_weight":           {expr: "v.weight_grams", variant: true, numeric: true},
	"variant_inventory":        {expr: "v.inventory_quantity", variant: true, numeric: true},
}

var (
	textRelations    = []string{"equals", "not_equals", "starts_with", "ends_with", "contains", "not_contains"}
	numericRelations = []string{"equals", "not_equals", "greater_than", "less_than"}
	tagRelations     = []string{"equals", "not_equals"}
)

// MaxCollectionRules bounds the rules of one smart collection.
const MaxCollectionRules = 60

// CheckRules validates smart-collection rules and returns them normalised
// (trimmed, lowercase names).
func CheckRules(rules []CollectionRule) ([]CollectionRule, error) {
	if len(rules) == 0 {
		return nil, apperr.Invalidf("a smart collection needs at least one rule")
	}
	if len(rules) > MaxCollectionRules {
		return nil, apperr.Invalidf("a smart collection has at most %d rules", MaxCollectionRules)
	}
	out := make([]CollectionRule, len(rules))
	for i, r := range rules {
		r.Column = strings.ToLower(strings.TrimSpace(r.Column))
		r.Relation = strings.ToLower(strings.TrimSpace(r.Relation))
		r.Condition = strings.TrimSpace(r.Condition)
		col, ok := ruleColumns[r.Column]
		if !ok {
			return nil, apperr.Invalidf("rules[%d].column must be one of title, type, vendor, tag, variant_price, variant_compare_at_price, variant_weight, variant_inventory, variant_title, not %q", i, r.Column)
		}
		allowed := textRelations
		switch {
		case col.numeric:
			allowed = numericRelations
		case col.tag:
			allowed = tagRelations
		}
		if !slices.Contains(allowed, r.Relation) {
			return nil, apperr.Invalidf("rules[%d].relation for %s must be one of %s, not %q", i, r.Column, strings.Join(allowed, ", "), r.Relation)
		}
		if r.Condition == "" {
			return nil, apperr.Invalidf("rules[%d].condition must not be empty", i)
		}
		if len(r.Condition) > 255 {
			return nil, apperr.Invalidf("rules[%d].condition must be at most 255 characters", i)
		}
		if col.numeric {
			if _, err := strconv.ParseInt(r.Condition, 10, 64); err != nil {
				return nil, apperr.Invalidf("rules[%d].condition of %s must be a whole number (prices in cents, weights in grams), not %q", i, r.Column, r.Condition)
			}
		}
		out[i] = r
	}
	return out, nil
}

// rulesPredicate compiles checked rules into a SQL condition over the
// products table aliased product, with its arguments.
func rulesPredicate(rules []CollectionRule, disjunctive bool) (string, []any) {
	if len(rules) == 0 {
		return "false", nil
	}
	parts := make([]string, 0, len(rules))
	var args []any
	for _, r := range rules {
		col := ruleColumns[r.Column]
		cond, arg := relationSQL(col, r)
		switch {
		case col.tag:
			cond = "EXISTS (SELECT 1 FROM unnest(product.tags) AS t(tag) WHERE lower(t.tag) = lower(?))"
			if r.Relation == "not_equals" {
				cond = "NOT " + cond
			}
		case col.variant:
			cond = "EXISTS (SELECT 1 FROM product_variants v WHERE v.product_id = product.id AND " + cond + ")"
		}
		parts = append(parts, "("+cond+")")
		args = append(args, arg)
	}
	join := " AND "
	if disjunctive {
		join = " OR "
	}
	return "(" + strings.Join(parts, join) + ")", args
}

func relationSQL(col ruleColumn, r CollectionRule) (string, any) {
	if col.numeric {
		n, _ := strconv.ParseInt(r.Condition, 10, 64)
		op := map[string]string{"equals": "=", "not_equals": "<>", "greater_than": ">", "less_than": "<"}[r.Relation]
		return fmt.Sprintf("%s %s ?", col.expr, op), n
	}
	lower := strings.ToLower(r.Condition)
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(lower)
	switch r.Relation {
	case "equals":
		return "lower(" + col.expr + ") = ?", lower
	case "not_equals":
		return "lower(" + col.expr + ") <> ?", lower
	case "starts_with":
		return "lower(" + col.expr + ") LIKE ?", esc + "%"
	case "ends_with":
		return "lower(" + col.expr + ") LIKE ?", "%" + esc
	case "contains":
		return "lower(" + col.expr + ") LIKE ?", "%" + esc + "%"
	default: // not_contains
		return "lower(" + col.expr + ") NOT LIKE ?", "%" + esc + "%"
	}
}
