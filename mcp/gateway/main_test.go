package gateway_test

import (
	"os"
	"testing"

	"github.com/quiver-go/quiver/internal/testbuild"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbuild.Cleanup()
	os.Exit(code)
}
