/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* coord_zap.h - CURVE in the coordinator (zap.c): the ZAP handler and the allow list,
 * as coord.c's setup and loop call them; zap.c owns them in struct coord. Event loop
 * thread only.
 */
#ifndef BPFLAB_COORD_ZAP_H
#define BPFLAB_COORD_ZAP_H

#include "coord_priv.h"

/* CURVE with a key (the allow list loaded and the ZAP handler bound before any socket
 * binds: without a handler libzmq would let every key in), or plaintext on endpoints
 * that stay on this machine (checked by coord_new). Returns 0 or -1 with errno. */
int coord_zap_init(struct coord *c, const struct coord_opts *opts);
/* Answer one ZAP request: 200 for a CURVE key in the allow list (an agent key only on
 * the agents socket), with its role as the connection's "Role" property; 400 otherwise. */
void coord_zap_handle(struct coord *c);
/* Read the allow list again (c->reload was set); keep the old one when the folder
 * cannot be read. */
void coord_reload_keys(struct coord *c);
/* The CURVE server options of SOCK for ZAP domain DOMAIN; nothing in plaintext. Returns
 * 0 or -1 with errno (zmq_errno). */
int coord_zap_server(struct coord *c, void *sock, const char *domain);
/* Close the ZAP socket (before the context ends), free the allow list, wipe the key
 * (coord_destroy). */
void coord_zap_release(struct coord *c);

#endif
