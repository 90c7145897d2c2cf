//go:build !linux && !darwin && !windows

package confine

// Wrap returns ErrUnsupported: this system's wall is not built yet.
func Wrap(r *Request) (*Command, error) { return nil, ErrUnsupported }

// Check returns ErrUnsupported: this system's wall is not built yet.
func Check() error { return ErrUnsupported }

// RunInit is Linux's; elsewhere it says so and fails.
func RunInit(args []string) int {
	println("lnk: sandbox init runs inside Linux's wall only")
	return 125
}
