// workload_goalloc.go — a Go target for the goalloc overhead bench (bench/overhead_goalloc.sh),
// the Go twin of workload_alloc.c: units of fixed CPU work (a xorshift loop, about 1 µs
// here) with heap allocations spread between them at a set rate, from four call sites
// (four noinline functions), sizes 16–4096 bytes, each kept in a ring of 64 live slices
// so that escape analysis leaves it on the heap and the collector frees it soon after.
// It reports its own CPU time (getrusage, user+system: the runtime's GC threads
// included) per unit of work, so what a recorder adds per allocation shows as a rise of
// that figure against the same rate run untraced.
//
// usage: workload_goalloc [-r RATE] [-d SECONDS | -n UNITS] [-w]
//
//	-r RATE     allocations per million units of work (default 1000000: about one per
//	            unit); 0 allocates nothing (the noise floor)
//	-d SECONDS  run for SECONDS of wall time (default 2)
//	-n UNITS    run exactly UNITS units instead
//	-w          print "pid N" and wait for SIGUSR1 before starting, so a tracer can
//	            attach first
//
// Prints one line, as workload_alloc does:
//
//	"units U allocs A cpu_ns T cpu_ns_per_unit X allocs_per_cpu_s R wall_s W"
//
// Built by bench/overhead_goalloc.sh (go build; the Makefile builds no Go).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// xorshift steps in one unit of work: about 1 µs on the development VM
const workSteps = 640

// live slices: each is dropped ring allocations after it was made
const ring = 64

var (
	live      [ring][]byte
	pos       int
	sizeState uint64 = 0x9e3779b97f4a7c15
	sink      uint64
)

func cpuNs() uint64 {
	var ru syscall.Rusage

	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return uint64(ru.Utime.Nano() + ru.Stime.Nano())
}

// the next size, 16 to 4096 bytes, from a fixed sequence (every run the same)
func nextSize() int {
	sizeState ^= sizeState << 13
	sizeState ^= sizeState >> 7
	sizeState ^= sizeState << 17
	return 16 + int(sizeState%4081)
}

func hold(b []byte) {
	b[0] = 1
	live[pos] = b
	pos = (pos + 1) % ring
}

// the four call sites: a heap profiler should name each with a quarter of the count

//go:noinline
func siteA(n int) { hold(make([]byte, n)) }

//go:noinline
func siteB(n int) { hold(make([]byte, n)) }

//go:noinline
func siteC(n int) { hold(make([]byte, n)) }

//go:noinline
func siteD(n int) { hold(make([]byte, n)) }

//go:noinline
func allocate(i uint64) {
	n := nextSize()
	switch i & 3 {
	case 0:
		siteA(n)
	case 1:
		siteB(n)
	case 2:
		siteC(n)
	default:
		siteD(n)
	}
}

// one unit of work: workSteps xorshift steps, the same CPU cost every time
//
//go:noinline
func work(x uint64) uint64 {
	for i := 0; i < workSteps; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func main() {
	rate := flag.Uint64("r", 1000000, "allocations per million units of work")
	seconds := flag.Float64("d", 2, "seconds of wall time")
	units := flag.Uint64("n", 0, "units of work (instead of -d)")
	wait := flag.Bool("w", false, "print the pid and wait for SIGUSR1")
	flag.Parse()
	if flag.NArg() != 0 || !(*seconds > 0) {
		fmt.Fprintln(os.Stderr, "usage: workload_goalloc [-r RATE] [-d SECONDS | -n UNITS] [-w]")
		os.Exit(2)
	}
	if *wait {
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGUSR1)
		fmt.Printf("pid %d\n", os.Getpid())
		<-c
	}
	var u, allocs, acc uint64
	x := uint64(88172645463325252)
	c0 := cpuNs()
	w0 := time.Now()
	end := w0.Add(time.Duration(*seconds * 1e9))
	for u = 0; ; u++ {
		if *units != 0 {
			if u >= *units {
				break
			}
		} else if u&63 == 0 && !time.Now().Before(end) {
			break
		}
		x = work(x)
		// Bresenham: rate allocations per million units, evenly spread
		for acc += *rate; acc >= 1000000; acc -= 1000000 {
			allocate(allocs)
			allocs++
		}
	}
	c1 := cpuNs()
	wall := time.Since(w0).Seconds()
	sink = x
	t := c1 - c0
	per, r := 0.0, 0.0
	if u > 0 {
		per = float64(t) / float64(u)
	}
	if t > 0 {
		r = float64(allocs) / (float64(t) / 1e9)
	}
	fmt.Printf("units %d allocs %d cpu_ns %d cpu_ns_per_unit %.1f allocs_per_cpu_s %.0f wall_s %.3f\n",
		u, allocs, t, per, r, wall)
}
