"""Flight SQL's two protobuf messages the test clients need (`Any` and
`CommandStatementQuery`), encoded and decoded by hand, so the clients need no protobuf
package. Shared by flight_clients.py and load_clients.py."""


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data


def any_of(type_url, value):
    return field(1, type_url.encode()) + field(2, value)


def parse_any(buf):
    fields, i = {}, 0
    while i < len(buf):
        key, i = read_varint(buf, i)
        length, i = read_varint(buf, i)
        fields[key >> 3] = buf[i:i + length]
        i += length
    return fields.get(1, b"").decode(), fields.get(2, b"")


def read_varint(buf, i):
    shift = n = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def statement(sql):
    return any_of("type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery",
                  field(1, sql.encode()))
