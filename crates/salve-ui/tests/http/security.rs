//! The guard: each refusal over a real socket, and that a refused change changed nothing.

use crate::support::*;

#[test]
fn binds_loopback_only() {
    let (tmp, _) = repo_with_runs();
    let app = serve(tmp.path());
    assert!(app.addr.ip().is_loopback(), "{}", app.addr);
    assert_eq!(app.addr.ip().to_string(), "127.0.0.1");
    assert_ne!(app.addr.port(), 0, "port 0 picks a free port");
}

#[test]
fn a_request_without_the_token_is_refused() {
    let (tmp, _) = repo_with_runs();
    let app = serve(tmp.path());
    for target in ["/", "/checkpoints", "/api/version", "/static/app.js"] {
        let a = send(&app, "GET", target, &[("Host", &host(&app))], "");
        assert_eq!(a.status, 401, "{target}: {}", a.body);
        assert!(!a.body.contains("<table"), "{target} leaked the page");
    }
    let wrong = format!("salve_ui_{}=not-the-token", app.addr.port());
    let a = send(
        &app,
        "GET",
        "/",
        &[("Host", &host(&app)), ("Cookie", &wrong)],
        "",
    );
    assert_eq!(a.status, 401);
    let a = send(&app, "GET", "/?token=0123", &[("Host", &host(&app))], "");
    assert_eq!(a.status, 401);
}

#[test]
fn the_token_in_the_url_becomes_a_strict_http_only_cookie() {
    let (tmp, _) = repo_with_runs();
    let app = serve(tmp.path());
    let url = app.url();
    assert!(url.starts_with(&format!("http://127.0.0.1:{}/?token=", app.addr.port())));
    let target = format!("/?token={}&kind=apply", app.token);
    let a = send(&app, "GET", &target, &[("Host", &host(&app))], "");
    assert_eq!(a.status, 303);
    assert_eq!(a.header("location").unwrap(), "/?kind=apply");
    let cookie = a.header("set-cookie").unwrap();
    assert!(cookie.starts_with(&format!("salve_ui_{}={};", app.addr.port(), app.token)));
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    // The cookie alone then opens the page.
    assert_eq!(get(&app, "/").status, 200);
}

#[test]
fn a_foreign_host_is_refused_even_with_the_token() {
    let (tmp, _) = repo_with_runs();
    let app = serve(tmp.path());
    let port = app.addr.port();
    for host in [
        format!("evil.example:{port}"),
        "127.0.0.1".to_owned(),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        String::new(),
    ] {
        let a = send(
            &app,
            "GET",
            "/",
            &[("Host", &host), ("Cookie", &cookie(&app))],
            "",
        );
        assert_eq!(a.status, 400, "Host {host:?}");
    }
    let a = send(
        &app,
        "GET",
        "/",
        &[
            ("Host", &format!("localhost:{port}")),
            ("Cookie", &cookie(&app)),
        ],
        "",
    );
    assert_eq!(a.status, 200, "localhost names the same address");
}

#[test]
fn a_cross_origin_post_is_refused_and_changes_nothing() {
    let (tmp, ids) = repo_with_runs();
    let app = serve(tmp.path());
    let before = std::fs::read_to_string(tmp.path().join("a.txt")).unwrap();
    let target = format!("/run/{}/restore", ids[0]);
    let body = format!("token={}", app.token);
    let base = [
        ("Host", host(&app)),
        ("Cookie", cookie(&app)),
        (
            "Content-Type",
            "application/x-www-form-urlencoded".to_owned(),
        ),
    ];
    let with = |extra: &[(&str, &str)]| {
        let mut h: Vec<(&str, &str)> = base.iter().map(|(k, v)| (*k, v.as_str())).collect();
        h.extend_from_slice(extra);
        send(&app, "POST", &target, &h, &body)
    };
    assert_eq!(with(&[("Origin", "http://evil.example")]).status, 403);
    assert_eq!(with(&[("Origin", "null")]).status, 403);
    assert_eq!(with(&[("Sec-Fetch-Site", "cross-site")]).status, 403);
    assert_eq!(with(&[("Referer", "http://evil.example/page")]).status, 403);
    assert_eq!(with(&[]).status, 403, "no origin information at all");
    // Same origin but without the token in the form.
    let origin = format!("http://{}", host(&app));
    let a = send(
        &app,
        "POST",
        &target,
        &[
            ("Host", &host(&app)),
            ("Cookie", &cookie(&app)),
            ("Origin", &origin),
        ],
        "",
    );
    assert_eq!(a.status, 403);
    // The token in the query does not stand in for the cookie on a POST.
    let a = send(
        &app,
        "POST",
        &format!("{target}?token={}", app.token),
        &[("Host", &host(&app)), ("Origin", &origin)],
        &body,
    );
    assert_eq!(a.status, 401);
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("a.txt")).unwrap(),
        before
    );
    let page = get(&app, "/");
    assert!(!page.body.contains("badge rewound"), "nothing was rewound");
}

#[test]
fn a_change_by_get_is_refused() {
    let (tmp, _) = repo_with_runs();
    let app = serve(tmp.path());
    let a = get(&app, "/undo-restore");
    assert_eq!(a.status, 405);
    let a = send(
        &app,
        "PUT",
        "/",
        &[("Host", &host(&app)), ("Cookie", &cookie(&app))],
        "",
    );
    assert_eq!(a.status, 405);
}

#[test]
fn no_cors_and_a_strict_policy_on_every_answer() {
    let (tmp, ids) = repo_with_runs();
    let app = serve(tmp.path());
    let evil = [
        ("Host", host(&app)),
        ("Cookie", cookie(&app)),
        ("Origin", "http://evil.example".to_owned()),
    ];
    let evil: Vec<(&str, &str)> = evil.iter().map(|(k, v)| (*k, v.as_str())).collect();
    for target in [
        "/".to_owned(),
        format!("/run/{}", ids[0]),
        "/api/version".to_owned(),
        "/nope".to_owned(),
    ] {
        let a = send(&app, "GET", &target, &evil, "");
        assert!(
            !a.head.to_ascii_lowercase().contains("access-control-"),
            "{target}: {}",
            a.head
        );
        let csp = a.header("content-security-policy").unwrap();
        assert!(
            csp.contains("default-src 'none'") && csp.contains("script-src 'self'"),
            "{csp}"
        );
        assert_eq!(
            a.header("x-content-type-options").as_deref(),
            Some("nosniff")
        );
    }
    let a = send(&app, "OPTIONS", "/", &evil, "");
    assert_eq!(a.status, 405);
    assert!(!a.head.to_ascii_lowercase().contains("access-control-"));
}

#[test]
fn script_in_a_recorded_reply_is_escaped_everywhere() {
    let (tmp, ids) = repo_with_runs();
    let app = serve(tmp.path());
    for target in ["/".to_owned(), format!("/run/{}", ids[2])] {
        let page = get(&app, &target);
        assert_eq!(page.status, 200);
        assert!(
            !page.body.contains("<script>alert"),
            "{target} carries live script"
        );
    }
    let run = get(&app, &format!("/run/{}", ids[2]));
    assert!(
        run.body
            .contains("&lt;script&gt;alert(&#39;diff&#39;)&lt;/script&gt;"),
        "{}",
        run.body
    );
    // The raw reply is served as text, never as HTML.
    let raw = get(&app, &format!("/run/{}/artifact/raw_reply", ids[2]));
    assert_eq!(raw.status, 200);
    assert!(raw.body.contains("<script>alert('reply')</script>"));
    assert!(raw
        .header("content-type")
        .unwrap()
        .starts_with("text/plain"));
}
