//! TLS for both protocols (`paimon serve --tls-cert FILE --tls-key FILE`): a certificate chain
//! and its private key in PEM, served with rustls (the ring provider, as the rest of the
//! workspace) by the REST server (`https://`) and by Flight SQL and workers (`grpc+tls://`).
//!
//! Handshakes run off the accept loop, each bounded by [`HANDSHAKE_TIMEOUT`]: a client that
//! connects and never finishes its handshake holds only its own connection, and a failed
//! handshake closes that connection only.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::Stream;
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;
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
        /// `certificate file` or `key file`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: pem::Error,
    },
    /// The certificate file holds no certificate.
    #[error("TLS certificate file {}: no certificate (a PEM `CERTIFICATE` section) in it", path.display())]
    NoCertificate {
        /// The file.
        path: PathBuf,
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

/// A certificate chain and its key, ready to serve.
#[derive(Clone)]
pub struct TlsConfig {
    server: Arc<ServerConfig>,
}

impl std::fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsConfig").finish_non_exhaustive()
    }
}

impl TlsConfig {
    /// The chain of `cert` (PEM `CERTIFICATE` sections, the server's first) with the private
    /// key of `key` (PEM PKCS#8, PKCS#1 or SEC1).
    ///
    /// # Errors
    /// A file that cannot be read, holds no certificate or no key, or a key that is not the
    /// certificate's.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Self, TlsError> {
        fn pem<'a>(what: &'static str, path: &'a Path) -> impl Fn(pem::Error) -> TlsError + 'a {
            move |source| TlsError::Pem {
                what,
                path: path.to_path_buf(),
                source,
            }
        }
        let chain = CertificateDer::pem_file_iter(cert)
            .map_err(pem("certificate file", cert))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(pem("certificate file", cert))?;
        if chain.is_empty() {
            return Err(TlsError::NoCertificate {
                path: cert.to_path_buf(),
            });
        }
        let private = PrivateKeyDer::from_pem_file(key).map_err(|e| match e {
            pem::Error::NoItemsFound => TlsError::NoKey {
                path: key.to_path_buf(),
            },
            e => pem("key file", key)(e),
        })?;
        let server =
            ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .and_then(|b| b.with_no_client_auth().with_single_cert(chain, private))
                .map_err(|source| match source {
                    rustls::Error::InconsistentKeys(_) => TlsError::KeyMismatch {
                        cert: cert.to_path_buf(),
                        key: key.to_path_buf(),
                    },
                    source => TlsError::Config {
                        cert: cert.to_path_buf(),
                        key: key.to_path_buf(),
                        source,
                    },
                })?;
        Ok(TlsConfig {
            server: Arc::new(server),
        })
    }

    /// The configuration for gRPC (Flight): ALPN `h2`, which gRPC clients require.
    pub(crate) fn grpc(&self) -> Arc<ServerConfig> {
        let mut c = (*self.server).clone();
        c.alpn_protocols = vec![b"h2".to_vec()];
        Arc::new(c)
    }

    /// The configuration for the REST server (HTTP/1.1; no ALPN asked, none chosen).
    pub(crate) fn http(&self) -> Arc<ServerConfig> {
        Arc::clone(&self.server)
    }
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
    /// Starts accepting on `listener` with `config` (on the current tokio runtime).
    pub(crate) fn new(listener: TcpListener, config: Arc<ServerConfig>) -> Self {
        let local = listener.local_addr().ok();
        let (tx, ready) = mpsc::channel(PENDING_CONNECTIONS);
        tokio::spawn(accept_loop(listener, TlsAcceptor::from(config), tx));
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
    acceptor: TlsAcceptor,
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
        let acceptor = acceptor.clone();
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
                    TlsListener::new(listener, tls.grpc()).into_stream(),
                    shutdown,
                )
                .await
        }
    }
}
