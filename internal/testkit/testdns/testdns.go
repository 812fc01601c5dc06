// Package testdns is a DNS server on loopback for tests: it answers from
// records the test adds, as a recursive resolver would (a CNAME followed
// within its records, NXDOMAIN for a name it has nothing of), over UDP and
// TCP on one port, and can stay silent about a name, for timeouts.
package testdns

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// Server is a running DNS server.
type Server struct {
	// Addr is its address, 127.0.0.1:port, for UDP and TCP alike.
	Addr string

	t       testing.TB
	mu      sync.Mutex
	records map[string][]dns.RR // by lower-case fully qualified name
	silent  map[string]bool
}

// New starts a server and stops it when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, records: map[string][]dns.RR{}, silent: map[string]bool{}}
	var udp net.PacketConn
	var tcp net.Listener
	// The TCP port must be the UDP one's; another process may hold it.
	for try := 0; tcp == nil; try++ {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("testdns: %v", err)
		}
		ln, err := net.Listen("tcp", pc.LocalAddr().String())
		if err != nil {
			pc.Close()
			if try == 20 {
				t.Fatalf("testdns: no port free for both UDP and TCP: %v", err)
			}
			continue
		}
		udp, tcp = pc, ln
	}
	s.Addr = udp.LocalAddr().String()
	for _, srv := range []*dns.Server{{PacketConn: udp, Handler: s}, {Listener: tcp, Handler: s}} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		go srv.ActivateAndServe() //nolint:errcheck // ends with Shutdown
		<-started
		t.Cleanup(func() { srv.Shutdown() }) //nolint:errcheck
	}
	return s
}

// Add adds records, each in zone-file form ("www.shop.test. 300 IN CNAME
// shops.platform.test.").
func (s *Server) Add(records ...string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, text := range records {
		rr, err := dns.NewRR(text)
		if err != nil || rr == nil {
			s.t.Fatalf("testdns: record %q: %v", text, err)
		}
		name := strings.ToLower(rr.Header().Name)
		s.records[name] = append(s.records[name], rr)
	}
}

// Remove removes every record of name.
func (s *Server) Remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.records, strings.ToLower(dns.Fqdn(name)))
}

// Silence makes the server never answer a question about name: the
// client waits until its timeout.
func (s *Server) Silence(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.silent[strings.ToLower(dns.Fqdn(name))] = true
}

// ServeDNS answers one query.
func (s *Server) ServeDNS(w dns.ResponseWriter, q *dns.Msg) {
	if len(q.Question) != 1 {
		return
	}
	qn := strings.ToLower(q.Question[0].Name)
	qtype := q.Question[0].Qtype
	s.mu.Lock()
	if s.silent[qn] {
		s.mu.Unlock()
		return
	}
	m := new(dns.Msg)
	m.SetReply(q)
	m.RecursionAvailable = true
	name := qn
	for hops := 0; hops < 8; hops++ {
		rrs, exists := s.records[name]
		if !exists {
			if name == qn {
				m.Rcode = dns.RcodeNameError
			}
			break
		}
		var cname *dns.CNAME
		for _, rr := range rrs {
			if rr.Header().Rrtype == qtype {
				m.Answer = append(m.Answer, dns.Copy(rr))
			} else if c, ok := rr.(*dns.CNAME); ok {
				cname = c
			}
		}
		if len(m.Answer) > 0 && m.Answer[len(m.Answer)-1].Header().Rrtype == qtype || cname == nil || qtype == dns.TypeCNAME {
			break
		}
		m.Answer = append(m.Answer, dns.Copy(cname))
		name = strings.ToLower(cname.Target)
	}
	s.mu.Unlock()
	if _, udp := w.RemoteAddr().(*net.UDPAddr); udp {
		size := dns.MinMsgSize
		if opt := q.IsEdns0(); opt != nil {
			size = int(opt.UDPSize())
		}
		m.Truncate(size)
	}
	w.WriteMsg(m) //nolint:errcheck
}
