//go:build linux

package confine

// LnkBinaryForTest is the lnk built for this test run.
func LnkBinaryForTest() string { return lnkBinary }
