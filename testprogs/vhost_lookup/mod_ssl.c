/*
 * vhost_lookup (HTTPD-64066): mod_ssl.c
 * mod_ssl's directives (modules/ssl/mod_ssl.c).
 */
#include "vhost_lookup.h"

const command_rec ssl_cmds[] = {
	C("SSLEngine", store_args), C("SSLCertificateFile", set_cert_file), C("SSLCertificateKeyFile", store_args),
	C("SSLProtocol", store_args), C("SSLCipherSuite", store_args), C("SSLHonorCipherOrder", store_args),
	C("SSLSessionCache", store_args), C("SSLStaplingCache", store_args), C("SSLUseStapling", store_args),
	C("SSLOptions", store_args), { NULL, NULL, NULL } };
