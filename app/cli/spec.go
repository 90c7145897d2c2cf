package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"lnk.dev/sandbox/spec"
)

func newSpecCmd() *cobra.Command {
	var (
		schema, keys, example bool
		check, folder         string
	)
	c := &cobra.Command{
		Use:   "spec (--check FILE [--folder DIR] | --schema | --keys | --example)",
		Short: "Check a spec, or print the spec format's schema, keys or an example",
		Long: `Check a spec exactly as a run would read it, refusals and all, and print
what it grants; or print the spec format: its JSON Schema (for editors), its
table of keys, or a commented example. Runs nothing.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			n := 0
			for _, b := range []bool{schema, keys, example, check != ""} {
				if b {
					n++
				}
			}
			if n != 1 {
				return failf(ExitUsage, "spec: give exactly one of --check FILE, --schema, --keys, --example")
			}
			out := c.OutOrStdout()
			switch {
			case schema:
				_, err := out.Write(spec.SchemaJSON)
				return err
			case keys:
				_, err := out.Write(spec.KeysMarkdown)
				return err
			case example:
				_, err := out.Write(spec.ExampleTOML)
				return err
			}
			p, err := loadPolicy(c.ErrOrStderr(), check, folder)
			if err != nil {
				return err
			}
			spec.Describe(out, p)
			return nil
		},
	}
	c.Flags().BoolVar(&schema, "schema", false, "print the spec's JSON Schema")
	c.Flags().BoolVar(&keys, "keys", false, "print the table of the spec's keys (Markdown)")
	c.Flags().BoolVar(&example, "example", false, "print a commented example spec")
	c.Flags().StringVar(&check, "check", "", "read and resolve the spec `FILE` as a run would, and print what it grants")
	c.Flags().StringVar(&folder, "folder", "", "the sandbox's folder `DIR` (default: the current folder)")
	return c
}

func newPermissionsCmd() *cobra.Command {
	var file, folder string
	c := &cobra.Command{
		Use:   "permissions [--spec FILE] [--folder DIR]",
		Short: "Say what a sandbox may read, write, run and reach, and what each system enforces",
		Long: `Print a plain account of what a sandbox with this spec (the default spec
without --spec) may read, write, run and reach, and, for each operating
system, what its wall enforces and what it does not.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			p, err := loadPolicy(c.ErrOrStderr(), file, folder)
			if err != nil {
				return err
			}
			spec.Describe(c.OutOrStdout(), p)
			return nil
		},
	}
	c.Flags().StringVar(&file, "spec", "", "the spec `FILE` (default: lnk's default spec)")
	c.Flags().StringVar(&folder, "folder", "", "the sandbox's folder `DIR` (default: the current folder)")
	return c
}

// loadPolicy reads the spec file (the default spec when file is "") and
// resolves it for folder, exactly as a run does. Errors are printed one per
// line and turned into ExitInvalid.
func loadPolicy(stderr io.Writer, file, folder string) (*spec.Policy, error) {
	var (
		s   *spec.Spec
		err error
	)
	source := "default"
	if file == "" {
		s = spec.Default()
	} else {
		source = file
		s, err = spec.Load(file)
	}
	if err == nil {
		var env spec.Env
		env, err = spec.OSEnv(folder)
		if err == nil {
			var p *spec.Policy
			if p, err = spec.Resolve(s, source, env); err == nil {
				return p, nil
			}
		}
	}
	if errs := spec.Errors(err); len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintf(stderr, "lnk: %v\n", e)
		}
		return nil, failf(ExitInvalid, "the spec does not check out: fix the lines above")
	}
	return nil, failf(ExitInvalid, "%v", err)
}
