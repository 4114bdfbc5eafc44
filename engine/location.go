package engine

import (
	"context"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// A contact's location is the value of its extra info named "location" (spec section
// 3; the name compared case-insensitively). ParseLocation reads the formats people
// paste into that field:
//
//   - "lat,lng" in decimal degrees, with optional spaces: "-15.6014, -56.0979";
//   - a geo URI (RFC 5870): "geo:-15.6014,-56.0979" (";u=…" or "?q=…" after it ignored);
//   - a Google Maps link on a google.<tld> or maps.google.<tld> host whose path is
//     /maps…: the pin of a place ("!3d<lat>!4d<lng>"), else "?q=", "?query=", "?ll=",
//     "?center=" or "?destination=" holding "lat,lng", else the "@lat,lng,zoom" of the
//     path, else a path segment "lat,lng" (/maps/search/-15.6,-56.1);
//   - an OpenStreetMap link (openstreetmap.org): "?mlat=…&mlon=…" or "#map=z/lat/lng".
//
// Anything else is invalid: short links (maps.app.goo.gl) cannot be followed without
// calling Google, addresses are not geocoded, decimal commas ("-15,6") are ambiguous
// with the separator, and numbers in exponent, hex, NaN or infinity forms are refused.
// Latitude must be within [-90, 90] and longitude within [-180, 180]. The web app
// parses the same way (web/src/features/clientmap/location.ts); both are held to the
// cases of engine/testdata/locations.json.

// MaxLocationLen bounds the text ParseLocation reads; longer values are invalid.
const MaxLocationLen = 2048

// LocationExtraInfoName is the extra info name that holds a contact's location.
const LocationExtraInfoName = "location"

// Location is a point in decimal degrees (WGS 84).
type Location struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

// degree is one coordinate as written: an optional sign, up to three integer digits,
// optional decimals.
const degree = `[+-]?\d{1,3}(?:\.\d{1,15})?`

var (
	pairRe     = regexp.MustCompile(`^\s*(` + degree + `)\s*,\s*(` + degree + `)\s*$`)
	atRe       = regexp.MustCompile(`@(` + degree + `),(` + degree + `)(?:,|$)`)
	pinRe      = regexp.MustCompile(`!3d(` + degree + `)!4d(` + degree + `)`)
	altRe      = regexp.MustCompile(`^[+-]?\d{1,6}(?:\.\d{1,6})?$`)
	osmHashRe  = regexp.MustCompile(`^map=\d{1,2}/(` + degree + `)/(` + degree + `)$`)
	googleHost = regexp.MustCompile(`^(?:www\.|maps\.)?google\.[a-z]{2,3}(?:\.[a-z]{2})?$`)
)

// ParseLocation reads a contact's location value; ok is false when it is not one of
// the accepted formats or its coordinates are out of range.
func ParseLocation(s string) (Location, bool) {
	if len(s) > MaxLocationLen {
		return Location{}, false
	}
	s = strings.TrimSpace(s)
	if m := pairRe.FindStringSubmatch(s); m != nil {
		return location(m[1], m[2])
	}
	lower := strings.ToLower(s)
	if strings.HasPrefix(lower, "geo:") {
		rest := s[len("geo:"):]
		if i := strings.IndexAny(rest, ";?"); i >= 0 {
			rest = rest[:i]
		}
		// A geo URI may carry an altitude as a third coordinate.
		parts := strings.Split(rest, ",")
		if len(parts) == 3 {
			if !altRe.MatchString(parts[2]) {
				return Location{}, false
			}
			parts = parts[:2]
		}
		if len(parts) != 2 {
			return Location{}, false
		}
		if m := pairRe.FindStringSubmatch(parts[0] + "," + parts[1]); m != nil {
			return location(m[1], m[2])
		}
		return Location{}, false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return Location{}, false
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case googleHost.MatchString(host):
		return googleLocation(u, host)
	case host == "openstreetmap.org" || host == "www.openstreetmap.org":
		return osmLocation(u)
	}
	return Location{}, false
}

func googleLocation(u *url.URL, host string) (Location, bool) {
	path := u.EscapedPath()
	if !strings.HasPrefix(path, "/maps") && !strings.HasPrefix(host, "maps.") {
		return Location{}, false
	}
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	if m := pinRe.FindStringSubmatch(path); m != nil {
		return location(m[1], m[2])
	}
	q := u.Query()
	for _, key := range []string{"q", "query", "ll", "center", "destination"} {
		if m := pairRe.FindStringSubmatch(q.Get(key)); m != nil {
			return location(m[1], m[2])
		}
	}
	if m := atRe.FindStringSubmatch(path); m != nil {
		return location(m[1], m[2])
	}
	for _, seg := range strings.Split(path, "/") {
		if m := pairRe.FindStringSubmatch(seg); m != nil {
			return location(m[1], m[2])
		}
	}
	return Location{}, false
}

func osmLocation(u *url.URL) (Location, bool) {
	q := u.Query()
	if lat, lng := q.Get("mlat"), q.Get("mlon"); lat != "" && lng != "" {
		if m := pairRe.FindStringSubmatch(lat + "," + lng); m != nil {
			return location(m[1], m[2])
		}
		return Location{}, false
	}
	if m := osmHashRe.FindStringSubmatch(u.Fragment); m != nil {
		return location(m[1], m[2])
	}
	return Location{}, false
}

// location converts two matched coordinates and checks their ranges.
func location(lat, lng string) (Location, bool) {
	la, err1 := strconv.ParseFloat(lat, 64)
	ln, err2 := strconv.ParseFloat(lng, 64)
	if err1 != nil || err2 != nil || la < -90 || la > 90 || ln < -180 || ln > 180 {
		return Location{}, false
	}
	return Location{Lat: la, Lng: ln}, true
}

// ContactLocation is one marker of the client map: a contact whose location parsed,
// with its last ticket (0 when it has none) for the popup's link.
type ContactLocation struct {
	ContactID ID     `json:"contactId"`
	Name      string `json:"name"`
	Number    string `json:"number"`
	Value     string `json:"value"`
	TicketID  ID     `json:"ticketId"`
	Location
}

// InvalidLocation is a contact whose location value did not parse.
type InvalidLocation struct {
	ContactID ID     `json:"contactId"`
	Name      string `json:"name"`
	Value     string `json:"value"`
}

// Sizes of GET /maps/contacts.
const (
	// LocationPageSize is the default and largest number of contacts per page.
	LocationPageSize = 2000
	// MaxInvalidLocations bounds the invalid values one page lists (InvalidCount
	// counts them all).
	MaxInvalidLocations = 100
)

// LocationPage is one page of the client map, ordered by contact id. Contacts with
// several location entries use the first (by position). NextCursor is the last
// contact id read: pass it as after for the next page (0 when HasMore is false).
type LocationPage struct {
	Contacts     []ContactLocation `json:"contacts"`
	Invalid      []InvalidLocation `json:"invalid"`
	InvalidCount int               `json:"invalidCount"`
	HasMore      bool              `json:"hasMore"`
	NextCursor   ID                `json:"nextCursor,omitempty"`
}

// LocationStore reads the contacts that have a location extra info, of one tenant
// only. persistence/store implements it on both dialects.
type LocationStore interface {
	// ContactLocations answers one page of contacts with a location, after the
	// contact id after (0: from the start), at most limit (≤ 0 or above
	// LocationPageSize: LocationPageSize) contacts read.
	ContactLocations(ctx context.Context, companyID, after ID, limit int) (LocationPage, error)
}
