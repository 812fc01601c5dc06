package experimentstats

import "math"

// The distributions the tests need, in the standard library's float64 and
// nothing else (no gonum: go.mod stays as it is). Each is exact to 1e-9
// relative against scipy.stats (distributions_test.go) over the range a
// report reaches: the far tails keep their precision because every tail is
// computed directly (erfc, the incomplete functions' own tails), never as
// 1 − (a number close to 1).

// NormalCDF is Φ, the standard normal distribution function, through erfc
// so that its far tails keep their precision.
func NormalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// NormalQuantile is Φ⁻¹(p) for 0 < p < 1 (−Inf at 0, +Inf at 1, NaN
// outside [0, 1]): Acklam's rational approximation (relative error below
// 1.15e-9) refined by one Halley step on NormalCDF, which brings it to the
// precision of erfc (about 1e-15 relative).
func NormalQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	}
	const pLow = 0.02425
	var x float64
	switch {
	case p < pLow:
		q := math.Sqrt(-2 * math.Log(p))
		x = (((((acklamC[0]*q+acklamC[1])*q+acklamC[2])*q+acklamC[3])*q+acklamC[4])*q + acklamC[5]) /
			((((acklamD[0]*q+acklamD[1])*q+acklamD[2])*q+acklamD[3])*q + 1)
	case p <= 1-pLow:
		q := p - 0.5
		r := q * q
		x = (((((acklamA[0]*r+acklamA[1])*r+acklamA[2])*r+acklamA[3])*r+acklamA[4])*r + acklamA[5]) * q /
			(((((acklamB[0]*r+acklamB[1])*r+acklamB[2])*r+acklamB[3])*r+acklamB[4])*r + 1)
	default:
		q := math.Sqrt(-2 * math.Log1p(-p))
		x = -(((((acklamC[0]*q+acklamC[1])*q+acklamC[2])*q+acklamC[3])*q+acklamC[4])*q + acklamC[5]) /
			((((acklamD[0]*q+acklamD[1])*q+acklamD[2])*q+acklamD[3])*q + 1)
	}
	// Halley's step: e is the error in probability, u = e/φ(x) the Newton
	// step; the factor 1 + x·u/2 is the curvature correction. The error is
	// taken in the nearer tail so that it is not lost to cancellation.
	var e float64
	if p < 0.5 {
		e = NormalCDF(x) - p
	} else {
		e = (1 - p) - NormalCDF(-x)
	}
	u := e * math.Sqrt(2*math.Pi) * math.Exp(x*x/2)
	return x - u/(1+x*u/2)
}

// Acklam's coefficients (P. J. Acklam, "An algorithm for computing the
// inverse normal cumulative distribution function", 2003).
var (
	acklamA = [6]float64{-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00}
	acklamB = [5]float64{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01}
	acklamC = [6]float64{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00}
	acklamD = [4]float64{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00}
)

// StudentTCDF is the distribution function of Student's t with df > 0
// degrees of freedom (df need not be whole: Welch's are not).
func StudentTCDF(t, df float64) float64 {
	if t < 0 {
		return studentTUpper(-t, df)
	}
	return 1 - studentTUpper(t, df)
}

// studentTUpper is P(T > t) for t ≥ 0: half the two-sided tail
// P(|T| > t) = I_x(df/2, 1/2) with x = df/(df + t²), the regularized
// incomplete beta function; 1 − x = t²/(df + t²) is passed exactly so that
// a small t loses nothing to cancellation.
func studentTUpper(t, df float64) float64 {
	if math.IsInf(t, 1) {
		return 0
	}
	d := df + t*t
	return 0.5 * regIncBeta(df/2, 0.5, df/d, t*t/d)
}

// StudentTTwoSided is the two-sided p-value of an observed t: P(|T| ≥ |t|).
func StudentTTwoSided(t, df float64) float64 {
	return math.Min(1, 2*studentTUpper(math.Abs(t), df))
}

// StudentTQuantile is the inverse of StudentTCDF for 0 < p < 1: Newton's
// method on the nearer tail, from the normal quantile, safeguarded by a
// bracket that bisection keeps when a Newton step would leave it, to 1e-12
// relative in t (well inside the 1e-10 the intervals need).
func StudentTQuantile(p, df float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1 || !(df > 0):
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case p == 0.5:
		return 0
	}
	tail := math.Min(p, 1-p) // P(T > x) for the x ≥ 0 we look for
	// Bracket [lo, hi]: studentTUpper falls from 1/2 at 0, so double hi
	// until the tail beyond it is below the target.
	lo, hi := 0.0, math.Max(1, -NormalQuantile(tail))
	for studentTUpper(hi, df) > tail {
		lo, hi = hi, 2*hi
		if math.IsInf(hi, 1) {
			return math.Copysign(math.MaxFloat64, p-0.5)
		}
	}
	x := math.Max(lo, math.Min(hi, -NormalQuantile(tail)))
	for i := 0; i < 200; i++ {
		f := studentTUpper(x, df) - tail
		if f > 0 {
			lo = x
		} else {
			hi = x
		}
		next := x + f/studentTPDF(x, df)
		if !(next > lo && next < hi) { // NaN, or outside the bracket
			next = lo + (hi-lo)/2
		}
		if math.Abs(next-x) <= 1e-12*math.Max(1, x) || hi-lo <= 1e-12*math.Max(1, x) {
			x = next
			break
		}
		x = next
	}
	if p < 0.5 {
		return -x
	}
	return x
}

// studentTPDF is the density of Student's t.
func studentTPDF(t, df float64) float64 {
	lg1, _ := math.Lgamma((df + 1) / 2)
	lg2, _ := math.Lgamma(df / 2)
	return math.Exp(lg1-lg2-(df+1)/2*math.Log1p(t*t/df)) / math.Sqrt(df*math.Pi)
}

// ChiSquareSF is the survival function of the chi-square distribution with
// k > 0 degrees of freedom, P(X > x) = Q(k/2, x/2), the regularized upper
// incomplete gamma function.
func ChiSquareSF(x, k float64) float64 {
	if x <= 0 {
		return 1
	}
	return regUpperGamma(k/2, x/2)
}

// incompleteEps and incompleteIter bound the series and continued fractions
// below: terms are summed until they change the result by less than
// incompleteEps, relative. The iterations the continued fractions need grow
// as the square root of their parameters, so the bound is generous: Welch's
// degrees of freedom are of the order of the visitors.
const (
	incompleteEps  = 1e-15
	incompleteIter = 100000
	lentzTiny      = 1e-300
)

// regIncBeta is I_x(a, b), the regularized incomplete beta function, given
// x and y = 1 − x (both, so that neither is rounded from the other). The
// continued fraction (Numerical Recipes' betacf, evaluated by Lentz's
// method) converges fast for x < (a+1)/(a+b+2); beyond it the symmetry
// I_x(a, b) = 1 − I_y(b, a) is used.
func regIncBeta(a, b, x, y float64) float64 {
	if x <= 0 {
		return 0
	}
	if y <= 0 {
		return 1
	}
	lga, _ := math.Lgamma(a)
	lgb, _ := math.Lgamma(b)
	lgab, _ := math.Lgamma(a + b)
	// The front factor x^a·y^b / (a·B(a, b)), in logs; log1p keeps
	// log x or log y precise when the other is small.
	var lx, ly float64
	if x < 0.5 {
		lx, ly = math.Log(x), math.Log1p(-x)
	} else {
		lx, ly = math.Log1p(-y), math.Log(y)
	}
	front := math.Exp(lgab - lga - lgb + a*lx + b*ly)
	if x < (a+1)/(a+b+2) {
		return front * betaContinuedFraction(a, b, x) / a
	}
	return 1 - front*betaContinuedFraction(b, a, y)/b
}

// betaContinuedFraction is the continued fraction of the incomplete beta
// function (Numerical Recipes, 3rd ed., §6.4), by the modified Lentz method.
func betaContinuedFraction(a, b, x float64) float64 {
	qab, qap, qam := a+b, a+1, a-1
	c := 1.0
	d := 1 - qab*x/qap
	if math.Abs(d) < lentzTiny {
		d = lentzTiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= incompleteIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		var del float64
		// The even step, then the odd one.
		c, d, del = lentzStep(fm*(b-fm)*x/((qam+m2)*(a+m2)), 1, c, d)
		h *= del
		c, d, del = lentzStep(-(a+fm)*(qab+fm)*x/((a+m2)*(qap+m2)), 1, c, d)
		h *= del
		if math.Abs(del-1) <= incompleteEps {
			break
		}
	}
	return h
}

// regUpperGamma is Q(a, x) = Γ(a, x)/Γ(a), the regularized upper incomplete
// gamma function for a > 0, x > 0 (Numerical Recipes, 3rd ed., §6.2): below
// x = a + 1 the series of P(a, x) and Q = 1 − P (Q is then above 0.08, so
// the subtraction costs no relative precision that matters); above it
// Legendre's continued fraction for Q itself, by the modified Lentz method,
// so that a far tail keeps its precision.
func regUpperGamma(a, x float64) float64 {
	lga, _ := math.Lgamma(a)
	front := math.Exp(-x + a*math.Log(x) - lga)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1.0; n <= incompleteIter; n++ {
			term *= x / (a + n)
			sum += term
			if math.Abs(term) < math.Abs(sum)*incompleteEps {
				break
			}
		}
		return math.Max(0, 1-front*sum)
	}
	b := x + 1 - a
	c := 1 / lentzTiny
	d := 1 / b
	h := d
	for i := 1.0; i <= incompleteIter; i++ {
		b += 2
		var del float64
		c, d, del = lentzStep(-i*(i-a), b, c, d)
		h *= del
		if math.Abs(del-1) <= incompleteEps {
			break
		}
	}
	return front * h
}

// lentzStep is one step of the modified Lentz method (Numerical Recipes,
// 3rd ed., §5.2) for a continued fraction's next term an/(bn + …): the
// next c and d, and the factor c·d the fraction's value takes.
func lentzStep(an, bn, c, d float64) (float64, float64, float64) {
	d = bn + an*d
	if math.Abs(d) < lentzTiny {
		d = lentzTiny
	}
	c = bn + an/c
	if math.Abs(c) < lentzTiny {
		c = lentzTiny
	}
	d = 1 / d
	return c, d, c * d
}
