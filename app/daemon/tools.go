package daemon

import (
	"sort"

	"lnk.dev/sandbox/app/toolconf"
	"lnk.dev/sandbox/bridges/tools"
)

// toolsBridge is the tools bridge, reading the person's tool settings
// afresh for each session, so `lnk sandbox tool add` applies without a
// restart.
func (d *Daemon) toolsBridge() *tools.Bridge {
	file := d.cfg.Paths.ToolsFile()
	return &tools.Bridge{
		Asker: d.asker,
		Logf:  d.cfg.Logf,
		Debug: d.cfg.Debug,
		Lookup: func(name string) (*tools.Tool, error) {
			if file == "" {
				return nil, nil
			}
			s, err := toolconf.Read(file)
			if err != nil {
				return nil, err
			}
			t := s.Tools[name]
			if t == nil {
				return nil, nil
			}
			return bridgeTool(name, t, s), nil
		},
	}
}

// bridgeTool is a tool's settings as the bridge takes them.
func bridgeTool(name string, t *toolconf.Tool, s *toolconf.Settings) *tools.Tool {
	env := make([]string, 0, len(t.Env))
	for k, v := range t.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return &tools.Tool{
		Name: name, Command: t.Command, Env: env, Allow: t.Allow,
		AskNone: t.AsksNone(), Shared: t.Shared, Idle: s.Idle(),
	}
}

// closeBridges frees what bridges hold beyond their sandboxes: the tools
// bridge's shared servers.
func (d *Daemon) closeBridges() {
	for _, b := range d.bridges {
		if c, ok := b.(interface{ Close() }); ok {
			c.Close()
		}
	}
}
