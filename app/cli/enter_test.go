package cli

import (
	"errors"
	"reflect"
	"testing"
)

func TestSessionArgv(t *testing.T) {
	server := func() (string, error) { return "/usr/lib/openssh/sftp-server", nil }
	for _, c := range []struct {
		shell, original string
		want            []string
	}{
		{"/bin/bash", "", []string{"/bin/bash", "-l"}},
		{"", "", []string{"/bin/sh", "-l"}},
		{"/bin/zsh", "ls -la; id", []string{"/bin/zsh", "-c", "ls -la; id"}},
		{"/bin/bash", "scp -t /x", []string{"/bin/bash", "-c", "scp -t /x"}},
		{"/bin/bash", "internal-sftp", []string{"/usr/lib/openssh/sftp-server"}},
		{"/bin/bash", "internal-sftp -l INFO -f AUTH", []string{"/usr/lib/openssh/sftp-server", "-l", "INFO", "-f", "AUTH"}},
		{"/bin/bash", "/usr/lib/openssh/sftp-server", []string{"/bin/bash", "-c", "/usr/lib/openssh/sftp-server"}},
		{"/bin/bash", "internal-sftpx", []string{"/bin/bash", "-c", "internal-sftpx"}},
	} {
		got, err := sessionArgv(c.shell, c.original, server)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("sessionArgv(%q, %q) = %q, %v; want %q", c.shell, c.original, got, err, c.want)
		}
	}
	none := errors.New("no sftp-server")
	if _, err := sessionArgv("/bin/sh", "internal-sftp", func() (string, error) { return "", none }); !errors.Is(err, none) {
		t.Errorf("a missing sftp-server: %v", err)
	}
}
