//! The page, embedded in the binary: one HTML shell, its ES modules, style
//! sheet and icon. The script routes `/`, `/games`, `/game/ID`, `/p/CODE`,
//! `/lobby`, `/login`, `/leaderboard` and `/@/NAME` itself; every other file is one line of [`FILES`].

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

const INDEX: &str = include_str!("../assets/index.html");

/// JavaScript (ES modules are served as this too).
const JS: &str = "text/javascript; charset=utf-8";
/// Style sheets.
const CSS: &str = "text/css; charset=utf-8";
/// SVG images.
const SVG: &str = "image/svg+xml";

/// Every embedded file besides the HTML shell: its path, its content and its
/// content type. A new module under `assets/` is one more line here.
const FILES: &[(&str, &str, &str)] = &[
    ("/app.js", include_str!("../assets/app.js"), JS),
    ("/i18n.js", include_str!("../assets/i18n.js"), JS),
    ("/api.js", include_str!("../assets/api.js"), JS),
    ("/dom.js", include_str!("../assets/dom.js"), JS),
    ("/prefs.js", include_str!("../assets/prefs.js"), JS),
    ("/home.js", include_str!("../assets/home.js"), JS),
    ("/list.js", include_str!("../assets/list.js"), JS),
    ("/people.js", include_str!("../assets/people.js"), JS),
    ("/lobby.js", include_str!("../assets/lobby.js"), JS),
    ("/profile.js", include_str!("../assets/profile.js"), JS),
    ("/game.js", include_str!("../assets/game.js"), JS),
    ("/dialogs.js", include_str!("../assets/dialogs.js"), JS),
    ("/sound.js", include_str!("../assets/sound.js"), JS),
    ("/board.js", include_str!("../assets/board.js"), JS),
    ("/style.css", include_str!("../assets/style.css"), CSS),
    ("/favicon.svg", include_str!("../assets/favicon.svg"), SVG),
    ("/analysis.js", include_str!("../assets/analysis.js"), JS),
    (
        "/analysis-graph.js",
        include_str!("../assets/analysis-graph.js"),
        JS,
    ),
    (
        "/analysis-marks.js",
        include_str!("../assets/analysis-marks.js"),
        JS,
    ),
    (
        "/analysis-words.js",
        include_str!("../assets/analysis-words.js"),
        JS,
    ),
    (
        "/analysis-live.js",
        include_str!("../assets/analysis-live.js"),
        JS,
    ),
    (
        "/analysis-review.js",
        include_str!("../assets/analysis-review.js"),
        JS,
    ),
    (
        "/analysis-hint.js",
        include_str!("../assets/analysis-hint.js"),
        JS,
    ),
    ("/analysis.css", include_str!("../assets/analysis.css"), CSS),
];

/// The HTML shell, for every page route.
pub(crate) async fn index() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        INDEX,
    )
}

/// A route for each of [`FILES`], revalidated on every load (`no-cache`) so a
/// new binary's page never mixes with an old one's modules.
pub(crate) fn files<S: Clone + Send + Sync + 'static>() -> Router<S> {
    FILES
        .iter()
        .fold(Router::new(), |router, &(path, content, kind)| {
            router.route(
                path,
                get(move || async move {
                    (
                        [
                            (header::CONTENT_TYPE, kind),
                            (header::CACHE_CONTROL, "no-cache"),
                        ],
                        content,
                    )
                }),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::{files, FILES};
    use axum::body::{to_bytes, Body};
    use axum::http::{header, Request, StatusCode};
    use tower::ServiceExt;

    #[test]
    fn paths_are_unique_and_absolute() {
        for (i, (path, content, _)) in FILES.iter().enumerate() {
            assert!(path.starts_with('/'), "{path}");
            assert!(!content.is_empty(), "{path} is empty");
            assert!(
                FILES[i + 1..].iter().all(|(p, _, _)| p != path),
                "{path} twice"
            );
        }
    }

    #[tokio::test]
    async fn every_file_is_served_with_its_type() {
        for &(path, content, kind) in FILES {
            let request = Request::get(path).body(Body::empty()).unwrap();
            let response = files::<()>().oneshot(request).await.unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            let headers = response.headers();
            assert_eq!(headers[header::CONTENT_TYPE], kind, "{path}");
            assert_eq!(headers[header::CACHE_CONTROL], "no-cache", "{path}");
            let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
            assert_eq!(body, content.as_bytes(), "{path}");
        }
        let types: Vec<&str> = ["/board.js", "/favicon.svg"]
            .iter()
            .filter_map(|p| FILES.iter().find(|f| f.0 == *p).map(|f| f.2))
            .collect();
        assert_eq!(types, ["text/javascript; charset=utf-8", "image/svg+xml"]);
    }
}
