package themesettings

// Merge is over laid on base, as an A/B test's theme arm changes its
// version's settings (README "A/B tests"): objects merge key by key at
// every depth; anything else (a list, a text, a number) replaces whole;
// no over (nil) is base itself, the control's. base is never modified.
func Merge(base, over any) any {
	b, okB := base.(map[string]any)
	o, okO := over.(map[string]any)
	if !okO {
		if over == nil {
			return base
		}
		return over
	}
	if !okB {
		b = map[string]any{}
	}
	out := make(map[string]any, len(b)+len(o))
	for k, v := range b {
		out[k] = v
	}
	for k, v := range o {
		out[k] = Merge(out[k], v)
	}
	return out
}
