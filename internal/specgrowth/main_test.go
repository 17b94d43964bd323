package specgrowth

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain builds the pinned tools once before the tests, which run in
// parallel: concurrent go commands do not share a build in progress, so in a
// cold build cache each test that runs oasdiff (or the generator, or apidiff)
// would build it again (measured on 2 cores: 129 s instead of 12 + 39 s).
func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv(specsEnv) != "" && os.Getenv(nestedEnv) == "" {
		for _, args := range [][]string{
			{"-C", "../../tools/oasdiff", "run", "github.com/oasdiff/oasdiff", "--version"},
			{"-C", "../../tools/apidiff", "build", "-o", os.DevNull, "golang.org/x/exp/cmd/apidiff"},
			{"-C", "../../gen", "run", "-modfile=../tools/go.mod", "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen", "-version"},
		} {
			if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "specgrowth: building the tools: go %s: %v\n%s", strings.Join(args, " "), err, out)
				os.Exit(1)
			}
		}
	}
	os.Exit(m.Run())
}
