// Package cli parses the services' flags, each with a CADBRIDGE_…
// environment equivalent (flag --engine-listen ↔ CADBRIDGE_ENGINE_LISTEN).
// A flag on the command line wins over the environment.
package cli

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// EnvName is the environment variable of a flag.
func EnvName(flagName string) string {
	return "CADBRIDGE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Parse applies the environment to fs's flags, then parses args.
func Parse(fs *flag.FlagSet, args []string) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := os.LookupEnv(EnvName(f.Name)); ok && err == nil {
			if setErr := f.Value.Set(v); setErr != nil {
				err = fmt.Errorf("%s=%q: %w", EnvName(f.Name), v, setErr)
			}
		}
	})
	if err != nil {
		return err
	}
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
		fs.VisitAll(func(f *flag.Flag) {
			fmt.Fprintf(out, "  --%s (env %s, default %q)\n    \t%s\n", f.Name, EnvName(f.Name), f.DefValue, f.Usage)
		})
	}
	return fs.Parse(args)
}
