package daemon

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"
)

// fakeLogin plays a tool's login inside a sandbox (helper process), as
// command-line tools do it: it listens on its own 127.0.0.1:PORT, runs
// $BROWSER with the provider's page, and waits for the provider's
// redirect to bring the code. It prints "code=C" and exits 0, or says
// what failed: "browser exit N" (exit 3) or "no callback" (exit 4).
func fakeLogin() int {
	l, err := net.Listen("tcp4", "127.0.0.1:"+os.Getenv("LNK_TEST_LOGIN_PORT"))
	if err != nil {
		fmt.Println("listen:", err)
		return 2
	}
	codes := make(chan string, 1)
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// As tools do: answer the browser, then end the login at once.
		http.SetCookie(w, &http.Cookie{Name: "planted", Value: "1"})
		w.Header().Set("Connection", "close")
		io.WriteString(w, "logged in: you may close this page")
		w.(http.Flusher).Flush()
		select {
		case codes <- r.URL.Query().Get("code"):
		default:
		}
	}))
	cmd := exec.Command(os.Getenv("BROWSER"), os.Getenv("LNK_TEST_LOGIN_URL"))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			fmt.Printf("browser exit %d\n", ee.ExitCode())
		} else {
			fmt.Println("browser:", err)
		}
		return 3
	}
	fmt.Println("browser opened")
	wait, _ := time.ParseDuration(os.Getenv("LNK_TEST_LOGIN_WAIT"))
	select {
	case c := <-codes:
		fmt.Printf("code=%s\n", c)
		return 0
	case <-time.After(wait):
		fmt.Println("no callback")
		return 4
	}
}
