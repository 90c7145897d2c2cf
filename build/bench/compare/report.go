//go:build linux

package main

import (
	"fmt"
	"io"
	"slices"
)

// stat formats the median of samples with its min–max.
func stat(s []float64) string {
	if len(s) == 0 {
		return ""
	}
	m := median(s)
	if len(s) == 1 {
		return num(m)
	}
	return fmt.Sprintf("%s (%s–%s)", num(m), num(slices.Min(s)), num(slices.Max(s)))
}

func median(s []float64) float64 {
	c := slices.Clone(s)
	slices.Sort(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// ratio returns a/b as "×N", or "" when either is missing.
func ratio(a, b []float64) string {
	if len(a) == 0 || len(b) == 0 || median(b) == 0 {
		return ""
	}
	return fmt.Sprintf("×%.2f", median(a)/median(b))
}

// printReport writes the Markdown table.
func printReport(w io.Writer, o *options, rows []row) {
	fmt.Fprintf(w, "Measured %s.\n\n", header(o))
	fmt.Fprintln(w, "| measurement | unit | direct / bare | lnk | srt | lnk / direct | srt / lnk |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", r.name, r.unit,
			stat(r.direct), stat(r.lnk), stat(r.srtCol), ratio(r.lnk, r.direct), ratio(r.srtCol, r.lnk))
	}
	fmt.Fprintln(w, "\nMedians with min–max over runs that alternate direct, lnk and srt. For MB/s higher is better; for ms and MB lower is better.")
}
