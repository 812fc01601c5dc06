package domains

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/miekg/dns"

	"storeadmin/models"
)

// ednsSize is the UDP answer size queries offer (DNS flag day 2020); a
// larger answer comes truncated and is asked again over TCP.
const ednsSize = 1232

// answer is what the resolver said to one question.
type answer struct {
	records []dns.RR
	// exists is false when the name does not exist (NXDOMAIN).
	exists bool
	// err says why the resolver gave no usable answer: it did not answer in
	// time, could not be reached, or answered a failure (SERVFAIL, REFUSED).
	err error
}

// lookup asks the resolver for name's records of type qtype.
func (s *Service) lookup(ctx context.Context, name string, qtype uint16) answer {
	q := new(dns.Msg)
	q.SetQuestion(dns.Fqdn(name), qtype)
	q.SetEdns0(ednsSize, false)
	in, _, err := s.udp.ExchangeContext(ctx, q, s.resolver)
	if err == nil && in.Truncated {
		in, _, err = s.tcp.ExchangeContext(ctx, q, s.resolver)
	}
	switch {
	case err != nil:
		var ne net.Error
		if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			return answer{err: fmt.Errorf("the DNS resolver %s did not answer within %s", s.resolver, s.cfg.Timeout)}
		}
		return answer{err: fmt.Errorf("the DNS resolver %s could not be asked: %v", s.resolver, err)}
	case in.Rcode == dns.RcodeNameError:
		return answer{}
	case in.Rcode != dns.RcodeSuccess:
		return answer{err: fmt.Errorf("the DNS resolver %s answered %s for %s %s", s.resolver, dns.RcodeToString[in.Rcode], dns.TypeToString[qtype], name)}
	}
	return answer{records: in.Answer, exists: true}
}

// Check looks up hostname's records through the resolver, at once and
// within the Timeout, and says where it points and whether its TXT record
// holds token. Where it points: a CNAME must name the target host;
// without one, its addresses (A and AAAA, at least one) must all be the
// platform's. Any look-up the resolver failed makes the whole check
// DNSUnreachable: nothing can be concluded from it.
func (s *Service) Check(ctx context.Context, hostname, token string) models.DomainCheck {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	questions := []struct {
		name  string
		qtype uint16
	}{{hostname, dns.TypeCNAME}, {hostname, dns.TypeA}, {hostname, dns.TypeAAAA}, {VerifyPrefix + hostname, dns.TypeTXT}}
	answers := make([]answer, len(questions))
	var wg sync.WaitGroup
	for i, q := range questions {
		wg.Go(func() { answers[i] = s.lookup(ctx, q.name, q.qtype) })
	}
	wg.Wait()
	for _, a := range answers {
		if a.err != nil {
			return models.DomainCheck{DNS: models.DomainDNSCheck{State: models.DNSUnreachable, Detail: a.err.Error()}}
		}
	}
	owned, txt := s.owned(hostname, token, answers[3])
	return models.DomainCheck{DNS: s.pointing(hostname, answers[0], answers[1], answers[2]), Owned: owned, TXT: txt}
}

// pointing says where hostname leads, from the answers to its CNAME, A and
// AAAA questions.
func (s *Service) pointing(hostname string, cname, a, aaaa answer) models.DomainDNSCheck {
	owner := dns.Fqdn(hostname)
	for _, rr := range cname.records {
		if c, ok := rr.(*dns.CNAME); ok && strings.EqualFold(c.Hdr.Name, owner) {
			target := strings.ToLower(strings.TrimSuffix(c.Target, "."))
			if target == s.cfg.TargetHost {
				return models.DomainDNSCheck{State: models.DNSPointed, Points: []string{target},
					Detail: fmt.Sprintf("%s is a CNAME for %s, the platform's target", hostname, target)}
			}
			return models.DomainDNSCheck{State: models.DNSElsewhere, Points: []string{target},
				Detail: fmt.Sprintf("%s is a CNAME for %s, not for %s", hostname, target, s.cfg.TargetHost)}
		}
	}
	if !a.exists && !cname.exists {
		return models.DomainDNSCheck{State: models.DNSMissing, Detail: fmt.Sprintf("%s does not exist in DNS (NXDOMAIN)", hostname)}
	}
	var points, foreign []string
	for _, rr := range slices.Concat(a.records, aaaa.records) {
		var ip netip.Addr
		var ours bool
		switch r := rr.(type) {
		case *dns.A:
			ip, _ = netip.AddrFromSlice(r.A.To4())
			ours = slices.Contains(s.cfg.TargetIPv4, ip)
		case *dns.AAAA:
			ip, _ = netip.AddrFromSlice(r.AAAA)
			ours = slices.Contains(s.cfg.TargetIPv6, ip)
		default:
			continue // the CNAMEs of a chain
		}
		if !slices.Contains(points, ip.String()) {
			points = append(points, ip.String())
			if !ours {
				foreign = append(foreign, ip.String())
			}
		}
	}
	switch {
	case len(points) == 0:
		return models.DomainDNSCheck{State: models.DNSMissing, Detail: fmt.Sprintf("%s has no A, AAAA or CNAME record", hostname)}
	case len(foreign) > 0:
		return models.DomainDNSCheck{State: models.DNSElsewhere, Points: points,
			Detail: fmt.Sprintf("%s points at %s, which %s not the platform's; %s", hostname, strings.Join(foreign, ", "), isAre(len(foreign)), s.expected(hostname))}
	}
	return models.DomainDNSCheck{State: models.DNSPointed, Points: points,
		Detail: fmt.Sprintf("%s points at %s, the platform's", hostname, strings.Join(points, ", "))}
}

// expected says, for a message, what hostname should point at.
func (s *Service) expected(hostname string) string {
	if !isApex(hostname) || len(s.cfg.TargetIPv4) == 0 {
		return "make it a CNAME for " + s.cfg.TargetHost
	}
	var ips []string
	for _, ip := range slices.Concat(s.cfg.TargetIPv4, s.cfg.TargetIPv6) {
		ips = append(ips, ip.String())
	}
	return "its records must point at " + strings.Join(ips, ", ") + " only"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// owned tells whether the answer to the TXT question holds token, and when
// not, says what was found instead.
func (s *Service) owned(hostname, token string, txt answer) (bool, string) {
	name := VerifyPrefix + hostname
	var found []string
	for _, rr := range txt.records {
		if t, ok := rr.(*dns.TXT); ok {
			value := strings.Join(t.Txt, "")
			if value == token {
				return true, ""
			}
			found = append(found, fmt.Sprintf("%q", value))
		}
	}
	if len(found) == 0 {
		return false, fmt.Sprintf("the TXT record %s was not found", name)
	}
	return false, fmt.Sprintf("the TXT record %s holds %s, not the domain's token", name, strings.Join(found, ", "))
}
