// Package experimentstats is the statistics of an A/B test's report and of
// its power calculation: pure functions of the sums the report's SQL
// aggregations produce (no database, no I/O), computed the way a careful
// analyst would and named after the textbook method each one is:
//
//   - rates (conversion, add to cart, checkout reached): the two-proportion
//     z-test, p-value from the pooled standard error (the null hypothesis is
//     equal rates), interval from the unpooled (Wald) one — statsmodels'
//     proportions_ztest and confint of the difference;
//   - revenue per session, a ratio of sums over visitors (the randomisation
//     unit): the delta method for the variance of each arm's ratio and
//     Welch's t with Welch–Satterthwaite degrees of freedom;
//   - more than two arms: every arm against the first (position 1), with a
//     Bonferroni correction over the k − 1 comparisons;
//   - sample ratio mismatch: the chi-square goodness of fit of the arms'
//     units against the configured splits;
//   - power: the fixed-horizon sample size of a two-sided test at α = 0.05
//     and 80% power with an equal split.
//
// Everything it returns is JSON: no NaN or Inf ever leaves it (empty arms,
// zero variance and a rate of 0 have their documented degenerate answers).
package experimentstats
