//! TLS for both protocols (`paimon serve --tls-cert FILE --tls-key FILE`): a certificate chain
//! and its private key in PEM, served with rustls (the ring provider, as the rest of the
//! workspace) by the REST server (`https://`) and by Flight SQL and workers (`grpc+tls://`).
//! With `--tls-client-ca FILE` the TLS is mutual: a client must present a certificate issued by
//! one of the authorities in `FILE`, or its handshake fails. [`TlsConfig::reload`] (`paimon
//! serve` calls it on SIGHUP) reads the files again for the connections accepted afterwards.
//!
//! Handshakes run off the accept loop, each bounded by [`HANDSHAKE_TIMEOUT`]: a client that
//! connects and never finishes its handshake holds only its own connection, and a failed
//! handshake closes that connection only.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::Stream;
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// How long a client has to finish its TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections handshaken but not yet taken by the server.
const PENDING_CONNECTIONS: usize = 64;

/// Why the certificate or key cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The file cannot be read or holds no PEM section of the kind wanted.
    #[error("TLS {what} {}: {source}", path.display())]
    Pem {
        /// `certificate file`, `key file` or `client CA file`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: pem::Error,
    },
    /// The certificate or client CA file holds no certificate.
    #[error("TLS {what} {}: no certificate (a PEM `CERTIFICATE` section) in it", path.display())]
    NoCertificate {
        /// `certificate file` or `client CA file`.
        what: &'static str,
        /// The file.
        path: PathBuf,
    },
    /// A certificate of the client CA file cannot be an authority for client certificates.
    #[error("TLS client CA file {}: {reason}", path.display())]
    ClientCa {
        /// The file.
        path: PathBuf,
        /// rustls' or webpki's reason.
        reason: String,
    },
    /// The key file holds no private key.
    #[error("TLS key file {}: no private key (a PEM `PRIVATE KEY`, `RSA PRIVATE KEY` or `EC PRIVATE KEY` section) in it", path.display())]
    NoKey {
        /// The file.
        path: PathBuf,
    },
    /// The key is not the certificate's.
    #[error("TLS key {} is not the key of certificate {}", key.display(), cert.display())]
    KeyMismatch {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
    },
    /// rustls refuses the pair (a key it cannot use, a key of another certificate).
    #[error("TLS certificate {} with key {}: {source}", cert.display(), key.display())]
    Config {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
        /// rustls' reason.
        source: rustls::Error,
    },
}

/// The files a [`TlsConfig`] is read from, and read again from on [`TlsConfig::reload`].
#[derive(Debug, Clone)]
pub struct TlsFiles {
    /// The certificate chain (PEM `CERTIFICATE` sections, the server's first).
    pub cert: PathBuf,
    /// Its private key (PEM PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// Mutual TLS: the certificates (PEM) of the authorities whose client certificates are
    /// accepted; a client without such a certificate fails the handshake. `None`: clients
    /// present none.
    pub client_ca: Option<PathBuf>,
}

/// The rustls configurations served: HTTP/1.1 for REST, ALPN `h2` for gRPC.
#[derive(Debug)]
struct Served {
    http: Arc<ServerConfig>,
    grpc: Arc<ServerConfig>,
}

/// A certificate chain and its key (and, for mutual TLS, the client authorities), ready to
/// serve. Clones share one configuration: [`TlsConfig::reload`] changes what every listener
/// made from it serves to the connections it accepts afterwards.
#[derive(Clone)]
pub struct TlsConfig {
    files: Arc<TlsFiles>,
    served: Arc<RwLock<Served>>,
}

impl std::fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsConfig")
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

/// Which protocol a listener serves.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Alpn {
    /// REST: HTTP/1.1, no ALPN asked, none chosen.
    Http,
    /// Flight: ALPN `h2`, which gRPC clients require.
    Grpc,
}

impl TlsConfig {
    /// The chain of `cert` with the private key of `key`, no client certificates.
    ///
    /// # Errors
    /// As [`TlsConfig::load`].
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Self, TlsError> {
        Self::load(TlsFiles {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            client_ca: None,
        })
    }

    /// Reads `files`.
    ///
    /// # Errors
    /// A file that cannot be read, holds no certificate or no key, a key that is not the
    /// certificate's, a client-authority file without a certificate rustls can use.
    pub fn load(files: TlsFiles) -> Result<Self, TlsError> {
        let served = read_served(&files)?;
        Ok(TlsConfig {
            files: Arc::new(files),
            served: Arc::new(RwLock::new(served)),
        })
    }

    /// The files this configuration is read from.
    pub fn files(&self) -> &TlsFiles {
        &self.files
    }

    /// Reads the files again: connections accepted afterwards get the new certificate, key
    /// and client authorities; connections open now keep theirs. When the files cannot be
    /// served (a certificate renewed without its key yet, say) nothing changes and the error
    /// says why.
    ///
    /// # Errors
    /// As [`TlsConfig::load`].
    pub fn reload(&self) -> Result<(), TlsError> {
        let served = read_served(&self.files)?;
        *self.served.write().unwrap_or_else(PoisonError::into_inner) = served;
        Ok(())
    }

    /// The configuration served now for `alpn`.
    pub(crate) fn current(&self, alpn: Alpn) -> Arc<ServerConfig> {
        let served = self.served.read().unwrap_or_else(PoisonError::into_inner);
        match alpn {
            Alpn::Http => Arc::clone(&served.http),
            Alpn::Grpc => Arc::clone(&served.grpc),
        }
    }
}

fn pem_error<'a>(what: &'static str, path: &'a Path) -> impl Fn(pem::Error) -> TlsError + 'a {
    move |source| TlsError::Pem {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// The certificates of a PEM file.
fn certificates(what: &'static str, path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(pem_error(what, path))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(pem_error(what, path))?;
    if certs.is_empty() {
        return Err(TlsError::NoCertificate {
            what,
            path: path.to_path_buf(),
        });
    }
    Ok(certs)
}

fn read_served(files: &TlsFiles) -> Result<Served, TlsError> {
    let (cert, key) = (&files.cert, &files.key);
    let chain = certificates("certificate file", cert)?;
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| match e {
        pem::Error::NoItemsFound => TlsError::NoKey { path: key.clone() },
        e => pem_error("key file", key)(e),
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = match &files.client_ca {
        None => None,
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            for c in certificates("client CA file", ca)? {
                roots.add(c).map_err(|e| TlsError::ClientCa {
                    path: ca.clone(),
                    reason: e.to_string(),
                })?;
            }
            let verifier =
                WebPkiClientVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider))
                    .build()
                    .map_err(|e| TlsError::ClientCa {
                        path: ca.clone(),
                        reason: e.to_string(),
                    })?;
            Some(verifier)
        }
    };
    let builder = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|source| TlsError::Config {
            cert: cert.clone(),
            key: key.clone(),
            source,
        })?;
    let builder = match verifier {
        None => builder.with_no_client_auth(),
        Some(v) => builder.with_client_cert_verifier(v),
    };
    let http = builder
        .with_single_cert(chain, private)
        .map_err(|source| match source {
            rustls::Error::InconsistentKeys(_) => TlsError::KeyMismatch {
                cert: cert.clone(),
                key: key.clone(),
            },
            source => TlsError::Config {
                cert: cert.clone(),
                key: key.clone(),
                source,
            },
        })?;
    let mut grpc = http.clone();
    grpc.alpn_protocols = vec![b"h2".to_vec()];
    Ok(Served {
        http: Arc::new(http),
        grpc: Arc::new(grpc),
    })
}

/// A TLS connection accepted by [`TlsListener`].
#[derive(Debug)]
pub struct TlsConnection {
    stream: TlsStream<TcpStream>,
    remote: SocketAddr,
}

impl AsyncRead for TlsConnection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for TlsConnection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

impl tonic::transport::server::Connected for TlsConnection {
    type ConnectInfo = tonic::transport::server::TcpConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        tonic::transport::server::TcpConnectInfo {
            local_addr: self.stream.get_ref().0.local_addr().ok(),
            remote_addr: Some(self.remote),
        }
    }
}

/// TLS connections over a bound TCP listener: a task accepts, each connection handshakes in
/// its own task, and the connections that complete come out in order of completion. Dropping
/// the listener stops accepting.
#[derive(Debug)]
pub struct TlsListener {
    ready: mpsc::Receiver<TlsConnection>,
    local: Option<SocketAddr>,
}

impl TlsListener {
    /// Starts accepting on `listener` with `tls`'s configuration for `alpn` (on the current
    /// tokio runtime), the one current when each connection is accepted.
    pub(crate) fn new(listener: TcpListener, tls: TlsConfig, alpn: Alpn) -> Self {
        let local = listener.local_addr().ok();
        let (tx, ready) = mpsc::channel(PENDING_CONNECTIONS);
        tokio::spawn(accept_loop(listener, tls, alpn, tx));
        TlsListener { ready, local }
    }

    /// The connections as the stream tonic serves.
    pub(crate) fn into_stream(self) -> impl Stream<Item = io::Result<TlsConnection>> {
        futures::stream::unfold(self.ready, |mut rx| async move {
            rx.recv().await.map(|c| (Ok(c), rx))
        })
    }
}

async fn accept_loop(
    listener: TcpListener,
    tls: TlsConfig,
    alpn: Alpn,
    ready: mpsc::Sender<TlsConnection>,
) {
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = ready.closed() => return,
        };
        let (tcp, remote) = match accepted {
            Ok(a) => a,
            Err(_) => {
                // Out of descriptors and the like: wait rather than spin (as axum does).
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = tcp.set_nodelay(true);
        let acceptor = TlsAcceptor::from(tls.current(alpn));
        let ready = ready.clone();
        tokio::spawn(async move {
            // A handshake that fails or times out closes this connection only.
            if let Ok(Ok(stream)) =
                tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await
            {
                let _ = ready.send(TlsConnection { stream, remote }).await;
            }
        });
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsConnection;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(c) => {
                let remote = c.remote;
                (c, remote)
            }
            // The accept loop ended (it only does when this listener is dropped): no more
            // connections, ever.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.local
            .ok_or_else(|| io::Error::other("the listener's address could not be read"))
    }
}

/// Serves the gRPC `router` on `listener`, over TLS with `tls`, until `shutdown` completes.
pub(crate) async fn serve_grpc(
    router: tonic::transport::server::Router,
    listener: TcpListener,
    tls: Option<&TlsConfig>,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    match tls {
        None => {
            router
                .serve_with_incoming_shutdown(
                    tokio_stream::wrappers::TcpListenerStream::new(listener),
                    shutdown,
                )
                .await
        }
        Some(tls) => {
            router
                .serve_with_incoming_shutdown(
                    TlsListener::new(listener, tls.clone(), Alpn::Grpc).into_stream(),
                    shutdown,
                )
                .await
        }
    }
}
