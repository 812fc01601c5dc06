package seed

import (
	"testing"

	"storeadmin/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }
