/*
 * navigate: the navstudio C API end to end.
 *
 *   navigate PACKAGE TYPE FX FY TX TY
 *       opens the package, plans a path from cell (FX,FY) to (TX,TY) for movement type
 *       TYPE, prints the traced length as `navstudio path` does, follows the flow to the
 *       goal by sampling it, stamps a wall block on the route, rebuilds, re-plans, removes
 *       the stamp, and walks a small crowd of infantry to the goal.
 *   navigate PACKAGE --requests FILE
 *       answers each line "TYPE FX FY TX TY" of FILE with one line (see answer()); run.sh
 *       compares them with the Rust API's answers.
 *   navigate PACKAGE --requests FILE --threads N
 *       the same answers from N threads: one shared data handle, one query handle per
 *       thread (request i on thread i % N), printed in the file's order.
 *
 * Build: see run.sh (cc navigate.c -I../../crates/navstudio-capi/include -lnavstudio_capi).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "navstudio.h"

#define CHECK(call)                                                                        \
    do {                                                                                   \
        NavstudioStatus status_ = (call);                                                  \
        if (status_ != NAVSTUDIO_STATUS_OK) {                                              \
            fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, #call,      \
                    (int)status_, navstudio_last_error());                                 \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* The status names the Rust oracle prints for the same outcomes. */
static const char *status_name(NavstudioStatus s) {
    switch (s) {
    case NAVSTUDIO_STATUS_OK: return "OK";
    case NAVSTUDIO_STATUS_UNKNOWN_MOVEMENT_TYPE: return "UNKNOWN_MOVEMENT_TYPE";
    case NAVSTUDIO_STATUS_OFF_MAP: return "OFF_MAP";
    case NAVSTUDIO_STATUS_WALL: return "WALL";
    case NAVSTUDIO_STATUS_UNREACHABLE: return "UNREACHABLE";
    case NAVSTUDIO_STATUS_NO_FLOW: return "NO_FLOW";
    default: return "OTHER";
    }
}

/* Plans, traces and releases one request; prints
 *   "TYPE FX FY TX TY traced LENGTH cells N" or "TYPE FX FY TX TY error NAME". */
static void answer(NavstudioWorld *world, const char *type, NavstudioCell from,
                   NavstudioCell to) {
    printf("%s %u %u %u %u ", type, from.x, from.y, to.x, to.y);
    uint32_t layer = 0;
    NavstudioStatus s = navstudio_movement_type_index(world, type, &layer);
    if (s != NAVSTUDIO_STATUS_OK) {
        printf("error %s\n", status_name(s));
        return;
    }
    uint32_t path = 0;
    s = navstudio_request_path(world, layer, &from, 1, to, &path);
    if (s != NAVSTUDIO_STATUS_OK) {
        printf("error %s\n", status_name(s));
        return;
    }
    double length = 0.0;
    size_t cells = 0;
    s = navstudio_trace_path(world, path, from, &length, NULL, 0, &cells);
    if (s == NAVSTUDIO_STATUS_OK)
        printf("traced %.6f cells %zu\n", length, cells);
    else
        printf("error %s\n", status_name(s));
    CHECK(navstudio_path_release(world, path));
}

static int run_requests(NavstudioWorld *world, const char *file) {
    FILE *f = fopen(file, "r");
    if (!f) {
        perror(file);
        return 1;
    }
    char type[64];
    unsigned fx, fy, tx, ty;
    while (fscanf(f, "%63s %u %u %u %u", type, &fx, &fy, &tx, &ty) == 5) {
        answer(world, type, (NavstudioCell){fx, fy}, (NavstudioCell){tx, ty});
    }
    fclose(f);
    return 0;
}

/* One request of a threaded run and its answer line. */
typedef struct {
    char type[64];
    NavstudioCell from, to;
    char line[160];
} Request;

typedef struct {
    const NavstudioData *data; /* shared by every thread, never changed */
    Request *requests;
    size_t count, first, step;
} Worker;

/* Answers requests first, first + step, ... with this thread's own query; the line is the
 * one answer() prints. */
static void *work(void *arg) {
    Worker *w = arg;
    NavstudioQuery *query = NULL;
    CHECK(navstudio_query_create(&query));
    for (size_t i = w->first; i < w->count; i += w->step) {
        Request *r = &w->requests[i];
        int n = snprintf(r->line, sizeof r->line, "%s %u %u %u %u ", r->type, r->from.x,
                         r->from.y, r->to.x, r->to.y);
        char *out = r->line + n;
        size_t room = sizeof r->line - (size_t)n;
        uint32_t layer = 0;
        NavstudioStatus s = navstudio_data_movement_type_index(w->data, r->type, &layer);
        NavstudioSharedPath *path = NULL;
        if (s == NAVSTUDIO_STATUS_OK)
            s = navstudio_query_request_path(query, w->data, layer, &r->from, 1, r->to, &path);
        if (s != NAVSTUDIO_STATUS_OK) {
            snprintf(out, room, "error %s\n", status_name(s));
            continue;
        }
        double length = 0.0;
        size_t cells = 0;
        s = navstudio_query_trace_path(query, path, r->from, &length, NULL, 0, &cells);
        if (s == NAVSTUDIO_STATUS_OK)
            snprintf(out, room, "traced %.6f cells %zu\n", length, cells);
        else
            snprintf(out, room, "error %s\n", status_name(s));
        navstudio_shared_path_free(path);
    }
    navstudio_query_free(query);
    return NULL;
}

static int run_requests_threaded(const char *package, const char *file, int threads) {
    FILE *f = fopen(file, "r");
    if (!f) {
        perror(file);
        return 1;
    }
    size_t count = 0, capacity = 64;
    Request *requests = malloc(capacity * sizeof *requests);
    if (!requests) exit(1);
    unsigned fx, fy, tx, ty;
    while (fscanf(f, "%63s %u %u %u %u", requests[count].type, &fx, &fy, &tx, &ty) == 5) {
        requests[count].from = (NavstudioCell){fx, fy};
        requests[count].to = (NavstudioCell){tx, ty};
        if (++count == capacity) {
            capacity *= 2;
            Request *grown = realloc(requests, capacity * sizeof *requests);
            if (!grown) exit(1);
            requests = grown;
        }
    }
    fclose(f);
    NavstudioData *data = NULL;
    CHECK(navstudio_data_open(package, &data));
    pthread_t ids[16];
    Worker workers[16];
    if (threads < 1 || threads > 16) threads = 2;
    for (int t = 0; t < threads; t++) {
        workers[t] = (Worker){data, requests, count, (size_t)t, (size_t)threads};
        if (pthread_create(&ids[t], NULL, work, &workers[t]) != 0) exit(1);
    }
    for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
    for (size_t i = 0; i < count; i++) fputs(requests[i].line, stdout);
    navstudio_data_free(data);
    free(requests);
    return 0;
}

/* The traced length and cells of a path from `from`; the caller frees *out_cells. */
static double trace(NavstudioWorld *world, uint32_t path, NavstudioCell from,
                    NavstudioCell **out_cells, size_t *out_count) {
    double length = 0.0;
    size_t count = 0;
    /* First ask for the count, then copy into a buffer of that size. */
    CHECK(navstudio_trace_path(world, path, from, &length, NULL, 0, &count));
    NavstudioCell *cells = malloc(count * sizeof *cells);
    if (!cells) exit(1);
    CHECK(navstudio_trace_path(world, path, from, &length, cells, count, &count));
    *out_cells = cells;
    *out_count = count;
    return length;
}

static void rebuild_all(NavstudioWorld *world, const char *what) {
    bool done = false;
    int frames = 0;
    while (!done) {
        CHECK(navstudio_rebuild(world, 2000, &done)); /* 2 ms a frame */
        frames++;
    }
    printf("rebuilt    %s in %d frame(s) of 2 ms\n", what, frames);
}

static int demo(NavstudioWorld *world, const char *type, NavstudioCell from, NavstudioCell to) {
    printf("navstudio  %s\n", navstudio_version());
    NavstudioWorldInfo info;
    CHECK(navstudio_world_info(world, &info));
    printf("map        %u x %u cells of %g m, sectors of %u, %u movement types\n", info.width,
           info.height, info.cell_size_m, info.sector_size, info.movement_type_count);
    uint32_t layer = 0;
    CHECK(navstudio_movement_type_index(world, type, &layer));
    bool reachable = false;
    CHECK(navstudio_is_reachable(world, layer, from, to, &reachable));
    printf("reachable  %s (island ids)\n", reachable ? "true" : "false");
    if (!reachable) return 0;

    /* Plan and trace: the same line as `navstudio path`. */
    uint32_t path = 0;
    CHECK(navstudio_request_path(world, layer, &from, 1, to, &path));
    NavstudioCell *cells = NULL;
    size_t count = 0;
    double length = trace(world, path, from, &cells, &count);
    printf("traced     %.2f cells of path (%zu steps before line of sight)\n", length, count - 1);

    /* Follow the flow as an agent would: half a cell at a time along sample_flow. */
    NavstudioVec2 pos = {from.x + 0.5f, from.y + 0.5f};
    NavstudioVec2 goal = {to.x + 0.5f, to.y + 0.5f};
    double walked = 0.0;
    int samples = 0;
    bool arrived = false;
    while (samples < 100000) {
        float dx = goal.x - pos.x, dy = goal.y - pos.y;
        if (dx * dx + dy * dy < 0.5f * 0.5f) {
            arrived = true;
            break;
        }
        NavstudioVec2 dir;
        NavstudioStatus s = navstudio_sample_flow(world, path, pos, &dir);
        if (s == NAVSTUDIO_STATUS_NO_FLOW) break;
        CHECK(s);
        pos.x += 0.5f * dir.x;
        pos.y += 0.5f * dir.y;
        walked += 0.5;
        samples++;
    }
    printf("followed   %.1f cells in %d flow samples, at the goal: %s\n", walked, samples,
           arrived ? "yes" : "no");
    if (!arrived) return 1;

    /* A 5 x 5 wall on the middle of the route, in every movement type. */
    NavstudioCell mid = cells[count / 2];
    free(cells);
    NavstudioRect rect = {mid.x >= 2 ? mid.x - 2 : 0, mid.y >= 2 ? mid.y - 2 : 0, 5, 5};
    uint8_t walls[25];
    memset(walls, 255, sizeof walls);
    uint32_t types[16];
    uint32_t ntypes = info.movement_type_count < 16 ? info.movement_type_count : 16;
    for (uint32_t i = 0; i < ntypes; i++) types[i] = i;
    uint32_t stamp = 0;
    CHECK(navstudio_apply_stamp(world, types, ntypes, rect, walls, 25, &stamp));
    printf("stamp      5 x 5 wall at (%u,%u)\n", rect.x, rect.y);
    rebuild_all(world, "the stamp");

    /* Re-plan from scratch (the old handle was re-planned by the rebuild too). */
    CHECK(navstudio_path_release(world, path));
    CHECK(navstudio_request_path(world, layer, &from, 1, to, &path));
    double around = trace(world, path, from, &cells, &count);
    free(cells);
    printf("re-planned %.2f cells of path around the stamp\n", around);
    bool seen = true;
    CHECK(navstudio_line_of_sight(world, path, mid, &seen));
    printf("stamped cell (%u,%u) sees the goal: %s\n", mid.x, mid.y, seen ? "yes" : "no");

    CHECK(navstudio_remove_stamp(world, stamp));
    rebuild_all(world, "the removal");
    double again = trace(world, path, from, &cells, &count);
    free(cells);
    printf("restored   %.2f cells of path\n", again);
    CHECK(navstudio_path_release(world, path));

    /* A crowd: 12 infantry around the source, ordered to the goal. */
    NavstudioCrowd *crowd = NULL;
    CHECK(navstudio_crowd_create(world, 7, &crowd));
    NavstudioArchetype infantry;
    CHECK(navstudio_archetype_default("infantry", &infantry));
    uint32_t ids[12];
    size_t added = 0;
    float m = info.cell_size_m;
    for (int k = 0; k < 12; k++) {
        NavstudioVec2 p = {(from.x + 0.5f + (float)(k % 4) - 1.5f) * m,
                           (from.y + 0.5f + (float)(k / 4) - 1.0f) * m};
        NavstudioStatus s = navstudio_crowd_add_agent(crowd, world, &infantry, p, 0, &ids[added]);
        if (s == NAVSTUDIO_STATUS_OK) added++;
        else if (s != NAVSTUDIO_STATUS_WALL && s != NAVSTUDIO_STATUS_OFF_MAP) CHECK(s);
    }
    NavstudioOrderReport report;
    NavstudioVec2 goal_m = {goal.x * m, goal.y * m};
    CHECK(navstudio_crowd_order(crowd, world, ids, added, goal_m, &report));
    printf("crowd      %zu infantry, %u moving, %u cannot reach\n", added, report.moving,
           report.unreachable);
    size_t n = 0;
    CHECK(navstudio_crowd_agent_count(crowd, &n));
    NavstudioVec2 *positions = malloc(n * sizeof *positions);
    NavstudioAgentState *states = malloc(n * sizeof *states);
    if (!positions || !states) exit(1);
    int seconds = 0;
    size_t done = 0;
    for (; seconds < 240 && done < n; seconds++) {
        CHECK(navstudio_crowd_step(crowd, world, 60));
        CHECK(navstudio_crowd_states(crowd, states, n, &n));
        done = 0;
        for (size_t i = 0; i < n; i++) done += states[i] == NAVSTUDIO_AGENT_STATE_ARRIVED;
    }
    CHECK(navstudio_crowd_positions(crowd, positions, n, &n));
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = hypot(positions[i].x - goal_m.x, positions[i].y - goal_m.y);
        if (d > worst) worst = d;
    }
    printf("crowd      %zu of %zu arrived after %d s, furthest %.1f m from the goal\n", done, n,
           seconds, worst);
    free(positions);
    free(states);
    navstudio_crowd_free(crowd);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PACKAGE TYPE FX FY TX TY | PACKAGE --requests FILE [--threads N]\n",
                argv[0]);
        return 2;
    }
    if (argc == 6 && strcmp(argv[2], "--requests") == 0 && strcmp(argv[4], "--threads") == 0)
        return run_requests_threaded(argv[1], argv[3], atoi(argv[5]));
    NavstudioWorld *world = NULL;
    CHECK(navstudio_world_open(argv[1], &world));
    int rc;
    if (argc == 4 && strcmp(argv[2], "--requests") == 0) {
        rc = run_requests(world, argv[3]);
    } else if (argc == 7) {
        NavstudioCell from = {(uint32_t)atoi(argv[3]), (uint32_t)atoi(argv[4])};
        NavstudioCell to = {(uint32_t)atoi(argv[5]), (uint32_t)atoi(argv[6])};
        rc = demo(world, argv[2], from, to);
    } else {
        fprintf(stderr, "usage: %s PACKAGE TYPE FX FY TX TY | PACKAGE --requests FILE [--threads N]\n",
                argv[0]);
        rc = 2;
    }
    navstudio_world_free(world);
    return rc;
}
