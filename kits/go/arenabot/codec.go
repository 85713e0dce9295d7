package arenabot

import "google.golang.org/protobuf/proto"

// codec encodes the messages of arenapb, which protoc-gen-go generates for the protobuf
// module (APIv2). gRPC 1.33's own codec takes github.com/golang/protobuf 1.3 messages, the
// version Debian's grpc package comes with, which knows nothing of APIv2's oneofs.
type codec struct{}

func (codec) Marshal(v interface{}) ([]byte, error) { return proto.Marshal(v.(proto.Message)) }

func (codec) Unmarshal(data []byte, v interface{}) error {
	return proto.Unmarshal(data, v.(proto.Message))
}

func (codec) Name() string { return "proto" }
