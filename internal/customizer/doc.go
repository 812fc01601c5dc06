// Package customizer holds the product customizer's rules that are not
// storage: what each element type's settings and each option type may be,
// the checks of conditions and functions, shared by the API and a template
// bundle's import (README "Product customizer").
package customizer
