//! The async client inside the caller's own tokio runtime, as most users run
//! it: concurrent discoveries of several hosts, and one host shared.

use tfdisco_core::Env;
use tfdisco_testkit::{Reply, TestServer, pki};
use tfdisco_tokio::Client;

fn client() -> Client {
    Client::builder()
        .system_roots(false)
        .add_root_certificate_pem(pki().ca_pem())
        .environment(Env::empty())
        .build()
        .expect("a client")
}

fn servers(n: usize) -> Vec<TestServer> {
    (0..n)
        .map(|i| {
            let server = TestServer::start();
            let doc = format!(r#"{{"modules.v1": "/m{i}/"}}"#);
            server.route(tfdisco_core::DISCOVERY_PATH, Reply::json(&doc));
            server
        })
        .collect()
}

async fn discover_all(client: &Client, servers: &[TestServer]) {
    let mut tasks = tokio::task::JoinSet::new();
    for (i, server) in servers.iter().enumerate() {
        let client = client.clone();
        let host = server.host();
        // Each host twice: the second call shares the first one's request
        // or hits the cache.
        for _ in 0..2 {
            let (client, host) = (client.clone(), host.clone());
            tasks.spawn(async move { (i, client.service_url(&host, "modules.v1").await) });
        }
    }
    while let Some(joined) = tasks.join_next().await {
        let (i, url) = joined.expect("no panic");
        let url = url.expect("discovered");
        assert!(url.as_str().ends_with(&format!("/m{i}/")), "{url}");
    }
    for server in servers {
        assert_eq!(server.requests().len(), 1, "one request per host");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_hosts_at_once_on_a_multi_thread_runtime() {
    let servers = servers(8);
    discover_all(&client(), &servers).await;
}

#[tokio::test(flavor = "current_thread")]
async fn many_hosts_at_once_on_a_current_thread_runtime() {
    let servers = servers(4);
    discover_all(&client(), &servers).await;
}

#[test]
fn a_client_built_outside_a_runtime_works_and_drops_inside_one() {
    let client = client();
    let servers = servers(2);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        discover_all(&client, &servers).await;
        drop(client);
    });
}

/// A blocking client called inside a tokio runtime cannot block there
/// (tokio would panic: "Cannot start a runtime from within a runtime"): it
/// says so and suggests the async client, whether it was built outside any
/// runtime or inside one.
#[test]
fn a_blocking_client_inside_a_runtime_is_an_error_not_a_panic() {
    use tfdisco_tokio::{BlockingClient, ErrorKind, Event};

    let servers = servers(1);
    let host = servers[0].host();
    let builder = || {
        BlockingClient::builder()
            .system_roots(false)
            .add_root_certificate_pem(pki().ca_pem())
            .environment(Env::empty())
    };
    let outside = builder().build().expect("a client");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let inside = runtime.block_on(async {
        for client in [&outside, &builder().build().expect("a client")] {
            let mut observer = |_: &Event<'_>| {};
            let observed = client.as_async().discover(&host).observe(&mut observer);
            for e in [
                client.discover(&host).expect_err("cannot block here"),
                client.wait(observed).expect_err("cannot block here"),
            ] {
                assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
                assert!(
                    e.to_string()
                        .contains("cannot run inside a tokio runtime: use the async client"),
                    "{e}"
                );
            }
        }
        builder().build().expect("a client")
    });
    // Outside the runtime both work, and nothing was sent before.
    assert_eq!(servers[0].requests().len(), 0);
    outside.discover(&host).expect("discovered");
    drop(runtime);
    drop(inside);
}

/// An observed call is a future like any other, run here in a task of its
/// own: its observer hears of each exchange of the discovery it makes, and
/// of none when the answer is cached. What needs no network (a version
/// that is not one) is checked when the call runs, before any request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_with_an_observer_runs_in_a_task_and_checks_its_arguments_first() {
    use tfdisco_tokio::{ErrorKind, Event, ModuleSource};

    let servers = servers(1);
    let host = servers[0].host();
    let module = format!("127.0.0.1:{}/ns/name/system", servers[0].port());
    let client = client();
    let task = tokio::spawn(async move {
        let mut paths = Vec::new();
        let mut observer = |event: &Event<'_>| {
            if let Event::Exchange(report) = event {
                paths.push(report.url.path().to_owned());
            }
        };
        let source = ModuleSource::parse(&module, Default::default()).expect("a module source");
        let refused = client
            .module_download(&source, "not a version")
            .observe(&mut observer)
            .await
            .expect_err("an invalid version");
        let first = client
            .service_url(&host, "modules.v1")
            .observe(&mut observer)
            .await;
        let cached = client
            .service_url(&host, "modules.v1")
            .observe(&mut observer)
            .await;
        (refused, first, cached, paths)
    });
    let (refused, first, cached, paths) = task.await.expect("no panic");
    assert_eq!(refused.kind(), ErrorKind::InvalidArgument, "{refused}");
    assert!(refused.to_string().contains("invalid version"), "{refused}");
    assert!(first.expect("discovered").as_str().ends_with("/m0/"));
    assert!(cached.expect("cached").as_str().ends_with("/m0/"));
    assert_eq!(paths, [tfdisco_core::DISCOVERY_PATH]);
    assert_eq!(servers[0].requests().len(), 1);
}
