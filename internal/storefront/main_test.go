package storefront_test

import (
	"testing"

	"storeadmin/internal/testkit/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }
