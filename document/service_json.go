package document

import (
	"bytes"
	"encoding/json"

	"github.com/kong/go-kong/kong"
)

// serviceFields is Service without its methods, so that MarshalJSON can encode it normally.
type serviceFields Service

// serviceWithCertID shadows kong.Service's client_certificate object with the id string: decK's
// file format (and so KIC's configuration) writes the reference as a plain id, and decK's schema
// rejects the object form. The shallower field wins in encoding/json.
type serviceWithCertID struct {
	*serviceFields
	ClientCertificate *string `json:"client_certificate,omitempty"`
}

// MarshalJSON writes client_certificate as the certificate's id, the way decK and KIC do.
func (s *Service) MarshalJSON() ([]byte, error) {
	if s.ClientCertificate == nil {
		return marshalNoEscape((*serviceFields)(s))
	}
	var id *string
	if s.ClientCertificate.ID != nil {
		id = kong.String(*s.ClientCertificate.ID)
	}
	return marshalNoEscape(serviceWithCertID{serviceFields: (*serviceFields)(s), ClientCertificate: id})
}

// marshalNoEscape encodes like JSON does (no HTML escaping), without the trailing newline.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
