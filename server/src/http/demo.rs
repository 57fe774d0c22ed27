//! `/demo/`: the browser pages of web-demo/ (the calculator at `/demo/`, `models.html`,
//! `model.html`, `changes.html`, their scripts, WASM and bundled chart library), served as
//! static files from the directory that `scripts/build-web-demo.sh` fills (`pricing serve
//! --demo-dir`, default `web-demo/dist`).
//!
//! The directory is looked at on every request, so a demo built after the server started is
//! served without a restart; until it exists, `/demo/` answers 404 with how to build it.

use std::path::{Path, PathBuf};

use salvo::http::StatusCode;
use salvo::prelude::*;
use salvo::serve_static::StaticDir;

/// Where the built demo is looked for when `--demo-dir` is not given (relative to the working
/// directory, which is the repository root for `scripts/run.sh`).
pub const DEFAULT_DEMO_DIR: &str = "web-demo/dist";

/// The `demo` route: `/demo` redirects to `/demo/`, which serves `index.html`.
pub(super) fn router(dir: &Path) -> Router {
    Router::with_path("demo/{**path}").get(DemoFiles {
        files: StaticDir::new([dir.to_path_buf()]).defaults("index.html"),
        dir: dir.to_path_buf(),
    })
}

struct DemoFiles {
    dir: PathBuf,
    files: StaticDir,
}

#[async_trait]
impl Handler for DemoFiles {
    async fn handle(
        &self,
        req: &mut Request,
        depot: &mut Depot,
        res: &mut Response,
        ctrl: &mut FlowCtrl,
    ) {
        let built = tokio::fs::metadata(self.dir.join("index.html"))
            .await
            .is_ok_and(|m| m.is_file());
        if built {
            self.files.handle(req, depot, res, ctrl).await;
        } else {
            res.status_code(StatusCode::NOT_FOUND);
            res.render(Text::Html(not_built_page(&self.dir)));
        }
    }
}

fn not_built_page(dir: &Path) -> String {
    let shown = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let shown = escape(&shown.display().to_string());
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Demo not built</title></head>\n<body style=\"font-family:system-ui,sans-serif;\
         max-width:40rem;margin:3rem auto;line-height:1.5\">\n<h1>The calculator demo is not \
         built</h1>\n<p>No <code>index.html</code> in <code>{shown}</code>.</p>\n<p>Build it \
         from the repository root with</p>\n<pre>bash scripts/build-web-demo.sh</pre>\n<p>which \
         writes <code>web-demo/dist</code>; or point the server at a built copy with \
         <code>pricing serve --demo-dir DIR</code> (env <code>PRICING_DEMO_DIR</code>). The \
         directory is checked on every request, so no restart is needed.</p>\n<p>The REST API \
         is unaffected: <a href=\"/api/v1/openapi.json\">/api/v1/openapi.json</a>.</p>\n\
         </body></html>\n"
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use salvo::conn::tcp::TcpAcceptor;

    use super::*;

    /// Serves only the demo route on a free port; returns its base URL.
    async fn serve(dir: &Path) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let acceptor = TcpAcceptor::try_from(listener).expect("acceptor");
        let service = Service::new(Router::new().push(router(dir)));
        tokio::spawn(Server::new(acceptor).serve(service));
        format!("http://{addr}")
    }

    fn client() -> reqwest::Client {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client")
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pricing-demo-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[tokio::test]
    async fn an_unbuilt_demo_answers_404_saying_how_to_build_it() {
        let base = serve(&temp_dir("absent").join("dist")).await;
        let res = client()
            .get(format!("{base}/demo/"))
            .send()
            .await
            .expect("response");
        assert_eq!(res.status(), 404);
        let body = res.text().await.expect("body");
        assert!(body.contains("bash scripts/build-web-demo.sh"), "{body}");
        assert!(body.contains("--demo-dir"), "{body}");
    }

    #[tokio::test]
    async fn a_built_demo_is_served_with_the_wasm_content_type() {
        let dir = temp_dir("built");
        std::fs::write(dir.join("index.html"), "<!doctype html><title>calc</title>")
            .expect("index");
        std::fs::write(dir.join("calc.wasm"), b"\0asm\x01\0\0\0").expect("wasm");
        let base = serve(&dir).await;
        let client = client();
        let get = |path: &str| client.get(format!("{base}{path}")).send();

        let res = get("/demo").await.expect("response");
        assert!(res.status().is_redirection(), "{}", res.status());
        assert_eq!(res.headers()["location"], "/demo/");

        let res = get("/demo/").await.expect("response");
        assert_eq!(res.status(), 200);
        assert!(res.text().await.expect("body").contains("calc"));

        let res = get("/demo/calc.wasm").await.expect("response");
        assert_eq!(res.status(), 200);
        assert_eq!(res.headers()["content-type"], "application/wasm");

        let res = get("/demo/%2e%2e/%2e%2e/etc/passwd")
            .await
            .expect("response");
        assert_eq!(res.status(), 404);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
