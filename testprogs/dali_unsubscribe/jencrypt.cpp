/*
 * dali_unsubscribe (HPCC-10660): jencrypt.cpp
 * The password of a user descriptor is encrypted on the client and
 * decrypted by Dali for every request that carries it (system/jlib/
 * jencrypt.cpp encrypt()/decrypt(); here XTEA in CBC mode, hex-encoded).
 */
#include "dali_unsubscribe.h"

const uint32_t daliEncryptKey[4] = { 0x5a1d3c7e, 0x9b04f6a2, 0x31c8e5d9, 0x7f2a6b10 };
static const unsigned XTEA_ROUNDS = 64;

static void xtea_encipher(uint32_t v[2], const uint32_t key[4])
{
	uint32_t v0 = v[0], v1 = v[1], sum = 0, delta = 0x9e3779b9;
	for (unsigned i = 0; i < XTEA_ROUNDS; i++) {
		v0 += (((v1 << 4) ^ (v1 >> 5)) + v1) ^ (sum + key[sum & 3]);
		sum += delta;
		v1 += (((v0 << 4) ^ (v0 >> 5)) + v0) ^ (sum + key[(sum >> 11) & 3]);
	}
	v[0] = v0;
	v[1] = v1;
}

static void xtea_decipher(uint32_t v[2], const uint32_t key[4])
{
	uint32_t v0 = v[0], v1 = v[1], delta = 0x9e3779b9, sum = delta * XTEA_ROUNDS;
	for (unsigned i = 0; i < XTEA_ROUNDS; i++) {
		v1 -= (((v0 << 4) ^ (v0 >> 5)) + v0) ^ (sum + key[(sum >> 11) & 3]);
		sum -= delta;
		v0 -= (((v1 << 4) ^ (v1 >> 5)) + v1) ^ (sum + key[sum & 3]);
	}
	v[0] = v0;
	v[1] = v1;
}

static const char hexdigits[] = "0123456789abcdef";

void encrypt(std::string &out, const char *in, const uint32_t key[4])
{
	size_t len = strlen(in);
	size_t padded = (len / 8 + 1) * 8;
	std::vector<byte> plain(padded, (byte)(padded - len));	/* PKCS#7 */
	memcpy(plain.data(), in, len);
	uint32_t iv[2] = { 0x01234567, 0x89abcdef };
	out.clear();
	for (size_t off = 0; off < padded; off += 8) {
		uint32_t v[2];
		memcpy(v, plain.data() + off, 8);
		v[0] ^= iv[0];
		v[1] ^= iv[1];
		xtea_encipher(v, key);
		iv[0] = v[0];
		iv[1] = v[1];
		const byte *b = reinterpret_cast<const byte *>(v);
		for (int i = 0; i < 8; i++) {
			out.push_back(hexdigits[b[i] >> 4]);
			out.push_back(hexdigits[b[i] & 15]);
		}
	}
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

void decrypt(std::string &out, const std::string &in, const uint32_t key[4])
{
	size_t n = in.size() / 2;
	std::vector<byte> cipher(n);
	for (size_t i = 0; i < n; i++)
		cipher[i] = (byte)(hexval(in[2 * i]) << 4 | hexval(in[2 * i + 1]));
	uint32_t iv[2] = { 0x01234567, 0x89abcdef };
	out.clear();
	for (size_t off = 0; off + 8 <= n; off += 8) {
		uint32_t v[2], c[2];
		memcpy(v, cipher.data() + off, 8);
		c[0] = v[0];
		c[1] = v[1];
		xtea_decipher(v, key);
		v[0] ^= iv[0];
		v[1] ^= iv[1];
		iv[0] = c[0];
		iv[1] = c[1];
		out.append(reinterpret_cast<const char *>(v), 8);
	}
	if (!out.empty()) {
		size_t pad = (byte)out.back();
		if (pad <= 8 && pad <= out.size())
			out.resize(out.size() - pad);
	}
}
